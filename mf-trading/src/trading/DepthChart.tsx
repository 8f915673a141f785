import styled, { useTheme } from 'styled-components';
import { Muted, formatInteger, formatPrice } from '@repex/shared-ui/ui';
import type { BookLevel } from './data';
import { depthPaths, depthSeries } from './depth';

const W = 600;
const H = 120;

const Figure = styled.figure`
  margin: 16px 0 0;
  svg {
    display: block;
    width: 100%;
    height: ${H}px;
  }
  figcaption {
    display: flex;
    justify-content: space-between;
    font-size: 12px;
  }
`;

/** The book's depth beside its levels: the tokens bid and asked cumulatively out from the spread. */
export function DepthChart({ levels }: { levels: BookLevel[] }) {
  const theme = useTheme();
  const depth = depthSeries(levels);
  const paths = depthPaths(depth, W, H);
  if (!paths) return null;
  const bid = depth.bids.at(-1)?.total ?? 0;
  const ask = depth.asks.at(-1)?.total ?? 0;
  return (
    <Figure data-testid="depth-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Depth: ${formatInteger(bid)} tokens bid down to ${formatPrice(paths.low)}, ${formatInteger(ask)} asked up to ${formatPrice(paths.high)}`}
      >
        <path d={paths.bid} fill="rgba(34, 197, 94, 0.25)" stroke={theme.colors.up} strokeWidth={1.5} />
        <path d={paths.ask} fill="rgba(239, 68, 68, 0.25)" stroke={theme.colors.down} strokeWidth={1.5} />
      </svg>
      <figcaption>
        <Muted>{formatPrice(paths.low)}</Muted>
        <Muted>Depth</Muted>
        <Muted>{formatPrice(paths.high)}</Muted>
      </figcaption>
    </Figure>
  );
}
