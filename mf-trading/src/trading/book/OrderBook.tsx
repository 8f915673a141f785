import styled from 'styled-components';
import { Muted, Table, formatInteger, formatPrice } from '@repex/shared-ui/ui';

import type { BookLevel } from '../data';
import { ownKey, type OwnLevels } from './ownLevels';

const BOOK_DEPTH = 5;

const Sides = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: 16px;
  @media (max-width: 640px) {
    grid-template-columns: 1fr;
  }
`;
const Price = styled.span<{ $side: 'buy' | 'sell' }>`
  font-weight: 600;
  color: ${({ $side, theme }) => ($side === 'buy' ? theme.colors.up : theme.colors.down)};
`;
const PriceButton = styled.button.attrs({ type: 'button' })<{ $side: 'buy' | 'sell' }>`
  border: 0;
  padding: 2px 4px;
  margin: -2px -4px;
  border-radius: ${({ theme }) => theme.radius.sm};
  background: transparent;
  font: inherit;
  font-weight: 600;
  cursor: pointer;
  color: ${({ $side, theme }) => ($side === 'buy' ? theme.colors.up : theme.colors.down)};
  &:hover {
    background: ${({ theme }) => theme.colors.surfaceRaised};
    text-decoration: underline;
  }
`;

/** A price chosen in the book: the panel's limit order that would trade against that level. */
export interface BookPick {
  side: 'buy' | 'sell';
  price: number;
}

interface SideProps {
  title: string;
  levels: BookLevel[];
  side: 'buy' | 'sell';
  onPick?: (pick: BookPick) => void;
  mine: OwnLevels;
}

const Yours = styled.span`
  margin-left: 6px;
  padding: 0 5px;
  border-radius: ${({ theme }) => theme.radius.sm};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  color: ${({ theme }) => theme.colors.accent};
  font-size: 11px;
  font-weight: 600;
`;

const Hint = styled(Muted)`
  display: block;
  margin-top: 10px;
  font-size: 13px;
`;

function Side({ title, levels, side, onPick, mine }: SideProps) {
  // An ask is taken by a buy, a bid by a sell.
  const against = side === 'sell' ? 'buy' : 'sell';
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
          {levels.map((l) => {
            const action = `${against === 'buy' ? 'Buy' : 'Sell'} at ${formatPrice(l.price)}`;
            const yours = mine.get(ownKey(side, l.price));
            return (
              <tr key={l.price} data-testid={`book-${side}`} data-yours={yours ? 'true' : undefined}>
                <td>
                  {onPick ? (
                    <PriceButton
                      $side={side}
                      aria-label={action}
                      title={action}
                      onClick={() => onPick({ side: against, price: l.price })}
                    >
                      {formatPrice(l.price)}
                    </PriceButton>
                  ) : (
                    <Price $side={side}>{formatPrice(l.price)}</Price>
                  )}
                </td>
                <td className="num">
                  {yours ? (
                    <Yours
                      title={`${formatInteger(yours)} of these are your orders`}
                      aria-label={`yours: ${formatInteger(yours)}`}
                    >
                      you {formatInteger(yours)}
                    </Yours>
                  ) : null}{' '}
                  {formatInteger(l.amount)}
                </td>
                <td className="num">{formatPrice(l.price * l.amount)}</td>
              </tr>
            );
          })}
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

/**
 * Five levels a side: best bids (highest first) and best asks (lowest first). A level's price
 * is a button, as on most exchanges' books: it fills the order panel with a limit order at it
 * (none while trading in the token is halted).
 */
export function OrderBook({
  levels,
  onPick,
  mine = new Map(),
}: {
  levels: BookLevel[];
  onPick?: (pick: BookPick) => void;
  /** The user's own open amount per level, marked beside the level's amount. */
  mine?: OwnLevels;
}) {
  const bids = levels
    .filter((l) => l.side === 'buy')
    .sort((a, b) => b.price - a.price)
    .slice(0, BOOK_DEPTH);
  const asks = levels
    .filter((l) => l.side === 'sell')
    .sort((a, b) => a.price - b.price)
    .slice(0, BOOK_DEPTH);
  return (
    <>
      <Sides>
        <Side title="Bids" levels={bids} side="buy" onPick={onPick} mine={mine} />
        <Side title="Asks" levels={asks} side="sell" onPick={onPick} mine={mine} />
      </Sides>
      {onPick && levels.length > 0 && <Hint>Choose a price to place a limit order at it.</Hint>}
    </>
  );
}
