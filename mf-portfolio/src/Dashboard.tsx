import { Link } from 'react-router';
import styled from 'styled-components';
import { comingSoon, useAppStore, useMarketEvents, useQuery, useWatchlist } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  CardGrid,
  DataTable,
  Change,
  EmptyState,
  ErrorState,
  Muted,
  Page,
  PageTitle,
  HaltedBadge,
  PersonCell,
  SkeletonRows,
  StackedTable,
  StatCard,
  TableScroll,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  formatChange,
  formatInteger,
  formatMoney,
  formatSignedMoney,
  formatPrice,
  media,
  WatchStar,
  SideBadge,
  DateTime,
} from '@repex/shared-ui/ui';
import { loadDashboard, loadWatchlist } from './portfolio/data';
import { OrdersTab } from './portfolio/OrdersTab';

const Actions = styled.div`
  display: grid;
  grid-template-columns: repeat(4, minmax(0, 1fr));
  gap: 12px;
  ${media.phone} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
  }
`;

/** Spec section 2, Investment Dashboard. */
/** Buttons side by side inside a cell (the cell itself stays a table cell, so rows line up). */
const RowButtons = styled.div`
  display: flex;
  gap: 6px;
  align-items: center;
`;

export default function Dashboard() {
  const userId = useAppStore((s) => s.session?.user.id)!;
  const data = useQuery(() => loadDashboard(userId), [userId]);
  const stars = useWatchlist();
  // Reloaded once a star's change is stored, and live with the market.
  const watchlist = useQuery(loadWatchlist, [stars.saved]);
  // Current prices (so values and P&L) move when anyone trades.
  useMarketEvents(
    null,
    () => {
      data.reload();
      watchlist.reload();
    },
    500,
  );
  const p = data.data?.summary;

  return (
    <Page data-remote="portfolio">
      <div>
        <PageTitle>Investment Dashboard</PageTitle>
        <Muted>Track your reputation token portfolio.</Muted>
      </div>
      {data.error && !data.data && (
        <Card>
          <ErrorState title="Your portfolio could not be loaded." message={data.error.message} onRetry={data.reload} />
        </Card>
      )}
      <CardGrid>
        <StatCard
          label="Total Portfolio Value"
          value={p && formatMoney(p.value)}
          hint={data.data && `Cash available: ${formatPrice(data.data.cash)}`}
        />
        <StatCard label="Total Invested" value={p && formatMoney(p.invested)} />
        <StatCard
          label="Unrealized P&L"
          value={p && <Change $value={p.unrealized}>{formatSignedMoney(p.unrealized)}</Change>}
          hint={p && p.invested > 0 ? formatChange((p.unrealized / p.invested) * 100) : undefined}
        />
        <StatCard
          label="Realized P&L"
          value={p && <Change $value={p.realized}>{formatSignedMoney(p.realized)}</Change>}
        />
      </CardGrid>
      <Actions>
        <Button as={Link} to="/wallet?action=deposit">
          Deposit Funds
        </Button>
        <Button as={Link} to="/wallet?action=withdraw" $variant="outline">
          Withdraw
        </Button>
        {['Auto-Invest', 'Portfolio Analysis'].map((a) => (
          <Button key={a} $variant="outline" onClick={() => comingSoon(a)}>
            {a}
          </Button>
        ))}
      </Actions>
      <Card>
        <Tabs defaultValue="holdings">
          <TabsList>
            <TabsTrigger value="holdings">Holdings</TabsTrigger>
            <TabsTrigger value="transactions">Transactions</TabsTrigger>
            <TabsTrigger value="watchlist">Watchlist</TabsTrigger>
            <TabsTrigger value="orders">Orders</TabsTrigger>
          </TabsList>
          <TabsContent value="holdings">
            <TableScroll>
              <StackedTable aria-label="Holdings">
                <thead>
                  <tr>
                    <th>Person</th>
                    <th className="num">Tokens</th>
                    <th className="num">Avg Price</th>
                    <th className="num">Current Price</th>
                    <th className="num">Value</th>
                    <th className="num">P&amp;L</th>
                    <th>Action</th>
                  </tr>
                </thead>
                <tbody>
                  {!data.data && <SkeletonRows rows={3} columns={7} />}
                  {data.data?.positions.map((pos) => (
                    <tr key={pos.token_id} data-testid="holding-row">
                      <td className="full">
                        <PersonCell person={pos} />
                      </td>
                      <td className="num" data-label="Tokens">
                        {formatInteger(pos.tokens)}
                      </td>
                      <td className="num" data-label="Avg">
                        {formatPrice(pos.avg_price)}
                      </td>
                      <td className="num" data-label="Now">
                        {formatPrice(pos.price)}
                        {data.data?.halted.has(pos.token_id) && (
                          <>
                            {' '}
                            <HaltedBadge />
                          </>
                        )}
                      </td>
                      <td className="num" data-label="Value">
                        {formatPrice(pos.value)}
                      </td>
                      <td className="num" data-label="P&L">
                        <Change $value={pos.pnl}>
                          {formatSignedMoney(pos.pnl)} ({formatChange(pos.pnl_percent)})
                        </Change>
                      </td>
                      <td className="full">
                        <RowButtons>
                          <Button as={Link} to={`/trading/${pos.token_id}?side=buy`} $size="sm">
                            Buy
                          </Button>
                          <Button as={Link} to={`/trading/${pos.token_id}?side=sell`} $size="sm" $variant="outline">
                            Sell
                          </Button>
                        </RowButtons>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </StackedTable>
              {data.data?.positions.length === 0 && (
                <EmptyState>
                  <span>
                    You hold no tokens yet. <Link to="/market">Browse the market</Link> to make your first trade.
                  </span>
                </EmptyState>
              )}
            </TableScroll>
            {data.data?.ownTokenId && <Muted style={{ fontSize: 13 }}>Your own token is shown on your profile.</Muted>}
          </TabsContent>
          <TabsContent value="transactions">
            <TableScroll>
              <StackedTable aria-label="Transactions">
                <thead>
                  <tr>
                    <th>Type</th>
                    <th>Person</th>
                    <th className="num">Tokens</th>
                    <th className="num">Price</th>
                    <th className="num">Total</th>
                    <th>Date &amp; Time</th>
                  </tr>
                </thead>
                <tbody>
                  {!data.data && <SkeletonRows rows={3} columns={6} />}
                  {data.data?.trades.map((t) => (
                    <tr key={t.id} data-testid="transaction-row">
                      <td>
                        <SideBadge side={t.type} />
                      </td>
                      <td>{t.name}</td>
                      <td className="num" data-label="Tokens">
                        {formatInteger(t.amount)}
                      </td>
                      <td className="num" data-label="Price">
                        {formatPrice(t.price)}
                      </td>
                      <td className="num" data-label="Total">
                        {formatPrice(t.total)}
                      </td>
                      <td>
                        <DateTime iso={t.created_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </StackedTable>
              {data.data?.trades.length === 0 && <EmptyState>No transactions yet.</EmptyState>}
            </TableScroll>
          </TabsContent>
          <TabsContent value="watchlist">
            <DataTable
              label="Watchlist"
              head={
                <>
                  <th>Person</th>
                  <th className="num">Price</th>
                  <th className="num">24h Change</th>
                  <th>Category</th>
                  <th aria-label="Action" />
                </>
              }
              rows={watchlist.data}
              error={watchlist.error}
              errorTitle="Your watchlist could not be loaded."
              onRetry={watchlist.reload}
              skeleton={[3, 5]}
              empty="Your watchlist is empty. Star a token on the market to follow it here."
            >
              {(t) => (
                <tr key={t.id} data-testid="watchlist-row">
                  <td className="full">
                    <PersonCell person={t} withCategory={false} />
                  </td>
                  <td className="num" data-label="Price">
                    {formatPrice(t.price)}
                    {t.halted && (
                      <>
                        {' '}
                        <HaltedBadge />
                      </>
                    )}
                  </td>
                  <td className="num" data-label="24h">
                    <Change $value={t.change_24h}>{formatChange(t.change_24h)}</Change>
                  </td>
                  <td>{t.category}</td>
                  <td>
                    <div style={{ display: 'flex', gap: 4, alignItems: 'center', justifyContent: 'flex-end' }}>
                      <WatchStar
                        on={stars.watched.has(t.id)}
                        name={t.name}
                        onToggle={() => void stars.toggle(t.id, t.name)}
                      />
                      <Button as={Link} to={`/trading/${t.id}`} $size="sm">
                        Trade
                      </Button>
                    </div>
                  </td>
                </tr>
              )}
            </DataTable>
          </TabsContent>
          <TabsContent value="orders">
            <OrdersTab />
          </TabsContent>
        </Tabs>
      </Card>
    </Page>
  );
}
