import { useState } from 'react';
import styled from 'styled-components';
import type { Position } from '@repex/shared-ui/contracts';
import { Button, EmptyState, formatPrice, formatShare } from '@repex/shared-ui/ui';
import { allocation } from './allocation';

const Toggle = styled.div`
  display: flex;
  gap: 8px;
  margin-bottom: 12px;
`;
const Bars = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: flex;
  flex-direction: column;
  gap: 10px;
  font-size: 14px;
`;
const Line = styled.div`
  display: flex;
  justify-content: space-between;
  gap: 8px;
  margin-bottom: 4px;
  span:last-child {
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
`;
const Track = styled.div`
  height: 8px;
  border-radius: 4px;
  background: ${({ theme }) => theme.colors.surfaceRaised};
  overflow: hidden;
`;
const Fill = styled.div`
  height: 100%;
  background: ${({ theme }) => theme.colors.primary};
`;

/** Where the positions' value is, by token or by category, as a bar chart with each share. */
export function Allocation({ positions }: { positions: Position[] }) {
  const [by, setBy] = useState<'token' | 'category'>('token');
  if (!positions.length) return <EmptyState>No positions yet: your cash is all there is to allocate.</EmptyState>;
  return (
    <>
      <Toggle role="group" aria-label="Group by">
        {(['token', 'category'] as const).map((b) => (
          <Button
            key={b}
            $size="sm"
            $variant={by === b ? 'default' : 'outline'}
            aria-pressed={by === b}
            onClick={() => setBy(b)}
          >
            By {b}
          </Button>
        ))}
      </Toggle>
      <Bars aria-label={`Allocation by ${by}`}>
        {allocation(positions, by).map((s) => (
          <li key={s.label}>
            <Line>
              <span>{s.label}</span>
              <span>
                {formatPrice(s.value)} · {formatShare(s.share)}
              </span>
            </Line>
            <Track>
              <Fill style={{ width: `${s.share * 100}%` }} />
            </Track>
          </li>
        ))}
      </Bars>
    </>
  );
}
