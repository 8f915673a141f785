import styled from 'styled-components';

const Track = styled.div<{ $height: number }>`
  width: 100%;
  height: ${({ $height }) => $height}px;
  border-radius: 999px;
  background: ${({ theme }) => theme.colors.surfaceRaised};
  overflow: hidden;
`;
const Fill = styled.div`
  height: 100%;
  background: ${({ theme }) => theme.gradient};
`;

/** A bar filled to value/max (clamped), e.g. a reputation score against 100. */
export function Progress({
  value,
  max = 100,
  height = 6,
  label,
}: {
  value: number;
  max?: number;
  height?: number;
  label?: string;
}) {
  const pct = max > 0 ? Math.min(100, Math.max(0, (value / max) * 100)) : 0;
  return (
    <Track
      $height={height}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
    >
      <Fill style={{ width: `${pct}%` }} />
    </Track>
  );
}
