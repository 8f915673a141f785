import type { ReactNode } from 'react';
import styled from 'styled-components';
import { media } from '../theme';
import { Card } from './Card';
import { Skeleton } from './Skeleton';

const Label = styled.div`
  color: ${({ theme }) => theme.colors.muted};
  font-size: 13px;
`;
const Value = styled.div`
  font-size: 24px;
  font-weight: 700;
  margin-top: 4px;
  min-height: 36px;
  overflow-wrap: anywhere;
  ${media.phone} {
    font-size: 19px;
    min-height: 28px;
  }
`;
const Hint = styled.div`
  font-size: 13px;
  color: ${({ theme }) => theme.colors.muted};
  min-height: 20px;
`;

/** A summary figure; while `value` is undefined it keeps its size with a skeleton. */
export function StatCard({ label, value, hint }: { label: string; value?: ReactNode; hint?: ReactNode }) {
  return (
    <Card aria-label={label}>
      <Label>{label}</Label>
      <Value data-testid={`stat-${label}`}>
        {value === undefined ? <Skeleton $height="28px" $width="60%" /> : value}
      </Value>
      <Hint>{hint}</Hint>
    </Card>
  );
}
