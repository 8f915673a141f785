import styled from 'styled-components';
import {
  DateTime,
  EmptyState,
  ErrorState,
  Pager,
  SideBadge,
  SkeletonRows,
  StackedTable,
  TableScroll,
  formatInteger,
  formatPrice,
} from '@repex/shared-ui/ui';
import { TRANSACTIONS_PAGE } from './transactions';
import { useTransactions } from './useTransactions';

const FeeNote = styled.small`
  display: block;
  color: ${({ theme }) => theme.colors.muted};
  font-size: 12px;
`;

/** The user's trades, newest first, a page at a time. */
export function TransactionsTab({ ownTokenId }: { ownTokenId: string | null | undefined }) {
  const { trades, setPage } = useTransactions(ownTokenId);
  const rows = trades.data?.rows;
  return (
    <>
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
            {!rows && !trades.error && <SkeletonRows rows={3} columns={6} />}
            {rows?.map((t) => (
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
                  {/* Which fee applied: the order traded at once (taker) or waited in the book (maker). */}
                  <FeeNote>
                    {t.fee < 0 ? `${formatPrice(-t.fee)} maker rebate` : `fee ${formatPrice(t.fee)}, ${t.liquidity}`}
                  </FeeNote>
                </td>
                <td>
                  <DateTime iso={t.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </StackedTable>
        {rows?.length === 0 && trades.data?.page === 1 && <EmptyState>No transactions yet.</EmptyState>}
        {trades.error && !rows && (
          <ErrorState title="Your trades could not be loaded." message={trades.error.message} onRetry={trades.reload} />
        )}
      </TableScroll>
      {trades.data && (
        <Pager
          page={trades.data.page}
          pageSize={TRANSACTIONS_PAGE}
          shown={trades.data.rows.length}
          more={trades.data.more}
          onPage={setPage}
        />
      )}
    </>
  );
}
