import styled from 'styled-components';
import { lazy, Suspense, useState } from 'react';
import { Muted } from '@repex/shared-ui/ui';

// The breakdown, its code and its read, only once someone opens it.
const ReputationBreakdown = lazy(() => import('./ReputationBreakdown'));

const Box = styled.details`
  font-size: 14px;
  summary {
    cursor: pointer;
    color: ${({ theme }) => theme.colors.muted};
    width: fit-content;
  }
  table {
    margin-top: 8px;
    border-collapse: collapse;
    width: 100%;
    max-width: 560px;
  }
  td {
    padding: 4px 8px 4px 0;
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
  td:last-child {
    text-align: right;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
`;

/** How the reputation score is computed: the database's formula, part by part, for this token. */
export function ReputationInfo({ tokenId }: { tokenId: string }) {
  const [opened, setOpened] = useState(false);
  return (
    <Box data-testid="reputation-info" onToggle={(e) => e.currentTarget.open && setOpened(true)}>
      <summary>How is the reputation score computed?</summary>
      <Muted>
        From what the exchange knows, recomputed hourly, and an automated analysis of the person&apos;s connected
        accounts, read daily. The parts below add up to the score shown above, as last computed.
      </Muted>
      {opened && (
        <Suspense fallback={<Muted>Loading...</Muted>}>
          <ReputationBreakdown tokenId={tokenId} />
        </Suspense>
      )}
    </Box>
  );
}
