import {
  Change,
  EmptyState,
  ErrorState,
  Pager,
  SkeletonRows,
  StackedTable,
  formatDate,
  formatInteger,
  formatPrice,
  formatSignedPrice,
} from '@repex/shared-ui/ui';
import { LOTS_PAGE, type SalesSpan } from './data';
import { useLots } from './useLots';

/** Each piece of a purchase that a sale within the period took, first in first out; newest sale first, a page at a time. */
export function LotsTable({ sales }: { sales: SalesSpan }) {
  const { lots, setPage } = useLots(sales);
  if (lots.error && !lots.data)
    return <ErrorState title="Your lots could not be loaded." message={lots.error.message} onRetry={lots.reload} />;
  if (lots.data?.page === 1 && !lots.data.rows.length) return <EmptyState>No sales in this period.</EmptyState>;
  return (
    <>
      <StackedTable aria-label="Realized lots">
        <thead>
          <tr>
            <th>Token</th>
            <th>Bought</th>
            <th>Sold</th>
            <th className="num">Tokens</th>
            <th className="num">Cost</th>
            <th className="num">Proceeds</th>
            <th className="num">Fees</th>
            <th className="num">Gain</th>
          </tr>
        </thead>
        <tbody>
          {!lots.data && <SkeletonRows rows={3} columns={8} />}
          {lots.data?.rows.map((l, i) => (
            // Two lots of one sale may share a token and both times: the place in the page tells them apart.
            <tr key={`${lots.data!.page}-${i}`}>
              <td className="full">{l.name}</td>
              <td data-label="Bought">{formatDate(l.bought_at)}</td>
              <td data-label="Sold">{formatDate(l.sold_at)}</td>
              <td className="num" data-label="Tokens">
                {formatInteger(l.tokens)}
              </td>
              <td className="num" data-label="Cost">
                {formatPrice(l.cost)}
              </td>
              <td className="num" data-label="Proceeds">
                {formatPrice(l.proceeds)}
              </td>
              <td className="num" data-label="Fees">
                {formatPrice(l.fees)}
              </td>
              <td className="num" data-label="Gain">
                <Change $value={l.gain}>{formatSignedPrice(l.gain)}</Change>
              </td>
            </tr>
          ))}
        </tbody>
      </StackedTable>
      {lots.data && (
        <Pager
          page={lots.data.page}
          pageSize={LOTS_PAGE}
          shown={lots.data.rows.length}
          more={lots.data.more}
          onPage={setPage}
        />
      )}
    </>
  );
}
