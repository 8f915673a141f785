import styled, { css } from 'styled-components';
import { formatPrice } from '../format';

export type BadgeVariant = 'default' | 'secondary' | 'outline' | 'up' | 'down' | 'verified';

export const Badge = styled.span<{ $variant?: BadgeVariant }>`
  display: inline-flex;
  align-items: center;
  gap: 4px;
  padding: 2px 8px;
  border-radius: ${({ theme }) => theme.radius.full};
  font-size: 12px;
  font-weight: 600;
  border: 1px solid transparent;
  ${({ $variant = 'default', theme }) => {
    switch ($variant) {
      case 'secondary':
        return css`
          background: ${theme.colors.surfaceRaised};
          color: ${theme.colors.muted};
        `;
      case 'outline':
        return css`
          border-color: ${theme.colors.border};
          color: ${theme.colors.text};
        `;
      case 'up':
        return css`
          background: rgba(34, 197, 94, 0.15);
          color: ${theme.colors.up};
        `;
      case 'down':
        return css`
          background: rgba(239, 68, 68, 0.15);
          color: ${theme.colors.downText};
        `;
      case 'verified':
        return css`
          background: rgba(34, 211, 238, 0.15);
          color: ${theme.colors.accent};
        `;
      default:
        return css`
          background: ${theme.colors.primary};
          color: ${theme.colors.primaryText};
        `;
    }
  }}
`;

/** The verified mark next to a name. */
export function VerifiedBadge() {
  return (
    <Badge $variant="verified" title="Verified" aria-label="Verified">
      ✓
    </Badge>
  );
}

/** A token in which the exchange halted trading (its reason is on its trading screen). */
export function HaltedBadge() {
  return (
    <Badge $variant="down" title="Trading in this token is halted by the exchange">
      Halted
    </Badge>
  );
}

/** A token's price as the tables show it, marked Halted while the exchange halts its trading. */
export function TokenPrice({ price, halted }: { price: number; halted: boolean }) {
  return (
    <>
      {formatPrice(price)}
      {halted && (
        <>
          {' '}
          <HaltedBadge />
        </>
      )}
    </>
  );
}

/** The side of an order or a trade ('buy' or 'sell', as the database's checks keep it): Buy in green, Sell in red. */
export function SideBadge({ side }: { side: string }) {
  return <Badge $variant={side === 'buy' ? 'up' : 'down'}>{side === 'buy' ? 'Buy' : 'Sell'}</Badge>;
}
