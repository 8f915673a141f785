import styled from 'styled-components';
import {
  Badge, Button, Card, EmptyState, ErrorState, Muted, Page, PageTitle, Skeleton, SkeletonRows, Table, TableScroll, Tabs,
  TabsContent, TabsList, TabsTrigger, comingSoon, formatDate, formatPrice, formatTime, media, supabase, unwrap,
  useAppStore, useMarketEvents, useQuery,
} from '@repex/shared-ui';

interface WalletEntry {
  id: string;
  type: 'Deposit' | 'Withdrawal' | 'Trade Fee';
  amount: number;
  status: string;
  created_at: string;
}

const Balance = styled(Card)`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 16px;
  flex-wrap: wrap;
  background: linear-gradient(135deg, rgba(124, 92, 255, 0.2), rgba(34, 211, 238, 0.1));
  strong { display: block; font-size: 40px; letter-spacing: -0.02em; min-height: 52px; }
  ${media.phone} { strong { font-size: 32px; } }
`;
const Amount = styled.td<{ $value: number }>`
  color: ${({ $value, theme }) => ($value >= 0 ? theme.colors.up : theme.colors.text)};
  font-weight: 600;
`;

/** Spec section 2, Wallet: the balance and its history, from the user's own rows. */
export default function Wallet() {
  const userId = useAppStore((s) => s.session?.user.id)!;
  const cash = useQuery(
    async () => (unwrap(await supabase().from('cash_accounts').select('available, reserved').eq('user_id', userId).maybeSingle()) as { available: number; reserved: number } | null),
    [userId],
  );
  const history = useQuery(
    async () => unwrap(await supabase().from('wallet_history').select('*').order('created_at', { ascending: false }).limit(200)) as WalletEntry[],
    [],
  );

  useMarketEvents(null, () => {
    cash.reload();
    history.reload();
  }, 500);

  return (
    <Page data-remote="wallet" data-build={__BUILD_ID__}>
      <div>
        <PageTitle>Wallet</PageTitle>
        <Muted>Your cash on RepX.</Muted>
      </div>
      <Balance aria-label="Available Balance">
        <div>
          <Muted>Available Balance</Muted>
          {cash.error && !cash.data ? (
            <ErrorState title="Your balance could not be loaded." onRetry={cash.reload} />
          ) : (
            <strong data-testid="available-balance">
              {cash.data !== undefined ? formatPrice(cash.data?.available ?? 0) : <Skeleton $width="180px" $height="44px" />}
            </strong>
          )}
          {!!cash.data?.reserved && <Muted>{formatPrice(cash.data.reserved)} reserved for open orders</Muted>}
        </div>
        <div style={{ display: 'flex', gap: 8 }}>
          <Button onClick={() => comingSoon('Deposit')}>Deposit</Button>
          <Button $variant="outline" onClick={() => comingSoon('Withdraw')}>
            Withdraw
          </Button>
        </div>
      </Balance>
      <Card>
        <Tabs defaultValue="history">
          <TabsList>
            <TabsTrigger value="history">Transaction History</TabsTrigger>
            <TabsTrigger value="pnl">Profit &amp; Loss</TabsTrigger>
          </TabsList>
          <TabsContent value="history">
            {history.error && !history.data ? (
              <ErrorState title="Your transactions could not be loaded." message={history.error.message} onRetry={history.reload} />
            ) : (
              <TableScroll>
                <Table aria-label="Transaction History">
                  <thead>
                    <tr>
                      <th>Type</th>
                      <th className="num">Amount</th>
                      <th>Date</th>
                      <th>Status</th>
                    </tr>
                  </thead>
                  <tbody>
                    {!history.data && <SkeletonRows rows={4} columns={4} />}
                    {history.data?.map((e) => (
                      <tr key={e.id} data-testid="wallet-row">
                        <td>{e.type}</td>
                        <Amount className="num" $value={e.amount}>
                          {e.amount >= 0 ? '+' : '-'}
                          {formatPrice(Math.abs(e.amount))}
                        </Amount>
                        <td>
                          {formatDate(e.created_at)} <Muted>{formatTime(e.created_at)}</Muted>
                        </td>
                        <td>
                          <Badge $variant={e.status === 'Completed' ? 'up' : 'secondary'}>{e.status}</Badge>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
                {history.data?.length === 0 && <EmptyState>No transactions yet.</EmptyState>}
              </TableScroll>
            )}
          </TabsContent>
          <TabsContent value="pnl">
            <EmptyState>
              <strong>Profit &amp; Loss reports are on their way</strong>
              <span>Detailed profit and loss statements per token and per month are not available yet.</span>
              <Button $variant="outline" onClick={() => comingSoon('Profit & Loss Reports')}>
                Request Feature
              </Button>
            </EmptyState>
          </TabsContent>
        </Tabs>
      </Card>
    </Page>
  );
}
