import styled from 'styled-components';
import { MONEY_SCALE, formatCount, formatPrice, useChart } from '@repex/shared-ui/ui';

const Box = styled.div`
  width: 100%;
  height: 280px;
`;

import type { PricePoint } from '../data';
import { drawOwnLines, type OwnLine } from './ownLines';

const NONE: OwnLine[] = [];

/**
 * Closing prices (hourly, or daily over a year or more), drawn by lightweight-charts (TradingView's financial charting library),
 * fetched with the trading screen only. The price scale fits the data (a decided departure from
 * the spec's fixed scale from 40 up). Hours before the listing keep their place on the time axis
 * with nothing drawn (the library's whitespace points), so a new token's line starts where it did.
 */
export function PriceChart({
  points,
  every = 'Hourly',
  own = NONE,
}: {
  points: PricePoint[];
  every?: 'Hourly' | 'Daily';
  /** The user's own orders, drawn as lines at their prices. */
  own?: OwnLine[];
}) {
  const box = useChart(
    points,
    (chart, { AreaSeries }, data, theme) => {
      chart.applyOptions({ timeScale: { timeVisible: true, secondsVisible: false } });
      const series = chart.addSeries(AreaSeries, {
        lineColor: theme.colors.primary,
        topColor: 'rgba(124, 92, 255, 0.35)',
        bottomColor: 'rgba(124, 92, 255, 0.02)',
        lineWidth: 2,
        priceFormat: MONEY_SCALE,
      });
      drawOwnLines(series, own, theme.colors);
      series.setData(
        data.map((p) => {
          const time = Math.floor(new Date(p.bucket).getTime() / 1000) as never;
          return p.price === null ? { time } : { time, value: p.price };
        }),
      );
    },
    own,
  );
  const priced = points.filter((p) => p.price !== null).length;

  return (
    <Box
      ref={box}
      role="img"
      aria-label={describeChart(points, every)}
      data-testid="price-chart"
      data-points={priced}
    />
  );
}

/** What the chart shows, in words, for those who cannot see it: its first and last price, its range. */
export function describeChart(points: PricePoint[], every: 'Hourly' | 'Daily' = 'Hourly'): string {
  const prices = points.flatMap((p) => (p.price === null ? [] : [p.price]));
  if (prices.length === 0) return `${every} price chart: no prices yet`;
  return (
    `${every} price chart: ${formatCount(prices.length, 'point')}, from ${formatPrice(prices[0]!)} ` +
    `to ${formatPrice(prices.at(-1)!)}, low ${formatPrice(Math.min(...prices))}, high ${formatPrice(Math.max(...prices))}`
  );
}
