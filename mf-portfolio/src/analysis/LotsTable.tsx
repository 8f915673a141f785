import type { RealizedLot } from '@repex/shared-ui/contracts';
import {
  Change,
  EmptyState,
  StackedTable,
  formatDate,
  formatInteger,
  formatPrice,
  formatSignedPrice,
} from '@repex/shared-ui/ui';

/** Each piece of a purchase that a sale within the period took, first in first out. */
export function LotsTable({ lots }: { lots: RealizedLot[] }) {
  if (!lots.length) return <EmptyState>No sales in this period.</EmptyState>;
  return (
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
        {lots.map((l) => (
          <tr key={`${l.token_id}-${l.bought_at}-${l.sold_at}`}>
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
  );
}
