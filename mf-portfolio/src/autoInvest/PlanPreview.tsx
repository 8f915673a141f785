import styled from 'styled-components';
import type { InvestPreview } from '@repex/shared-ui/contracts';
import { Muted, formatPrice, formatTokens } from '@repex/shared-ui/ui';

const Box = styled.div`
  font-size: 13px;
  padding: 10px 12px;
  border-radius: ${({ theme }) => theme.radius.sm};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  p {
    margin: 0;
  }
  p + p {
    margin-top: 6px;
  }
`;
const Warn = styled.p`
  color: ${({ theme }) => theme.colors.warning};
`;

/** What a run would buy at today's prices, and whether the amount is too small for the basket. */
export function PlanPreview({ amount, preview, index }: { amount: number; preview: InvestPreview; index: boolean }) {
  const bought = preview.items.map((i) => `${formatTokens(i.tokens, i.name)} (${formatPrice(i.cost)})`).join(', ');
  return (
    <Box data-testid="plan-preview" role="status">
      <p>
        {preview.items.length === 0
          ? `At today's prices ${formatPrice(amount)} buys no whole token.`
          : `A run at today's prices buys ${bought}; ${formatPrice(preview.left)} stays in your cash.`}
      </p>
      {index && preview.bought < preview.members && (
        <Warn>
          Too small for the whole basket: {formatPrice(amount)} buys {preview.bought} of the index&apos;s{' '}
          {preview.members} tokens.
          {preview.basket_min !== null &&
            ` A run needs about ${formatPrice(preview.basket_min)} to buy one token of each.`}
        </Warn>
      )}
      <p>
        <Muted>Prices move: each run buys at the book&apos;s prices on its date.</Muted>
      </p>
    </Box>
  );
}
