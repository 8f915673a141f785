import styled, { useTheme } from 'styled-components';
import { Muted, formatInteger, formatPrice, formatTokens } from '@repex/shared-ui/ui';
import type { BookLevel } from '../data';
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
    border-top: 1px solid ${({ theme }) => theme.colors.border};
    padding-top: 2px;
  }
`;
/** The plot with its depth axis: tokens at the top and half-way, over a faint grid line. */
const Plot = styled.div`
  position: relative;
  border-left: 1px solid ${({ theme }) => theme.colors.border};
  span {
    position: absolute;
    left: 4px;
    font-size: 11px;
    color: ${({ theme }) => theme.colors.muted};
    font-variant-numeric: tabular-nums;
    pointer-events: none;
  }
  hr {
    position: absolute;
    left: 0;
    right: 0;
    top: 50%;
    margin: 0;
    border: 0;
    border-top: 1px dashed ${({ theme }) => theme.colors.border};
  }
`;

/**
 * The book's depth beside its levels: the tokens bid and asked cumulatively out from the spread,
 * with its axes: price along the foot (lowest bid, the spread's middle, highest ask) and tokens up
 * the side.
 */
export function DepthChart({ levels }: { levels: BookLevel[] }) {
  const theme = useTheme();
  const depth = depthSeries(levels);
  const paths = depthPaths(depth, W, H);
  if (!paths) return null;
  const bid = depth.bids.at(-1)?.total ?? 0;
  const ask = depth.asks.at(-1)?.total ?? 0;
  const bestBid = depth.bids[0]?.price;
  const bestAsk = depth.asks[0]?.price;
  const mid = bestBid !== undefined && bestAsk !== undefined ? (bestBid + bestAsk) / 2 : null;
  return (
    <Figure data-testid="depth-chart">
      <Plot>
        <span style={{ top: 0 }}>{formatTokens(paths.most)}</span>
        <span style={{ top: 'calc(50% - 14px)' }}>{formatInteger(Math.round(paths.most / 2))}</span>
        <hr />
        <svg
          viewBox={`0 0 ${W} ${H}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`Depth: ${formatInteger(bid)} tokens bid down to ${formatPrice(paths.low)}, ${formatInteger(ask)} asked up to ${formatPrice(paths.high)}`}
        >
          <path d={paths.bid} fill="rgba(34, 197, 94, 0.25)" stroke={theme.colors.up} strokeWidth={1.5} />
          <path d={paths.ask} fill="rgba(239, 68, 68, 0.25)" stroke={theme.colors.down} strokeWidth={1.5} />
        </svg>
      </Plot>
      <figcaption>
        <Muted>{formatPrice(paths.low)}</Muted>
        <Muted>{mid === null ? 'Depth' : `Depth · mid ${formatPrice(mid)}`}</Muted>
        <Muted>{formatPrice(paths.high)}</Muted>
      </figcaption>
    </Figure>
  );
}
