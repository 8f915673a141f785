import styled from 'styled-components';
import { Muted, Table, formatInteger, formatPrice } from '@repex/shared-ui/ui';

export interface BookLevel {
  side: 'buy' | 'sell';
  price: number;
  amount: number;
}

export const BOOK_DEPTH = 5;

const Sides = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: 16px;
  @media (max-width: 640px) {
    grid-template-columns: 1fr;
  }
`;
const Price = styled.td<{ $side: 'buy' | 'sell' }>`
  color: ${({ $side, theme }) => ($side === 'buy' ? theme.colors.up : theme.colors.down)};
  font-weight: 600;
`;

function Side({ title, levels, side }: { title: string; levels: BookLevel[]; side: 'buy' | 'sell' }) {
  return (
    <div>
      <h3 style={{ margin: '0 0 8px', fontSize: 15 }}>{title}</h3>
      <Table aria-label={title}>
        <thead>
          <tr>
            <th>Price</th>
            <th className="num">Amount</th>
            <th className="num">Total</th>
          </tr>
        </thead>
        <tbody>
          {levels.map((l) => (
            <tr key={l.price} data-testid={`book-${side}`}>
              <Price $side={side}>{formatPrice(l.price)}</Price>
              <td className="num">{formatInteger(l.amount)}</td>
              <td className="num">{formatPrice(l.price * l.amount)}</td>
            </tr>
          ))}
          {levels.length === 0 && (
            <tr>
              <td colSpan={3}>
                <Muted>No {side === 'buy' ? 'bids' : 'asks'} yet.</Muted>
              </td>
            </tr>
          )}
        </tbody>
      </Table>
    </div>
  );
}

/** Five levels a side: best bids (highest first) and best asks (lowest first). */
export function OrderBook({ levels }: { levels: BookLevel[] }) {
  const bids = levels
    .filter((l) => l.side === 'buy')
    .sort((a, b) => b.price - a.price)
    .slice(0, BOOK_DEPTH);
  const asks = levels
    .filter((l) => l.side === 'sell')
    .sort((a, b) => a.price - b.price)
    .slice(0, BOOK_DEPTH);
  return (
    <Sides>
      <Side title="Bids" levels={bids} side="buy" />
      <Side title="Asks" levels={asks} side="sell" />
    </Sides>
  );
}
