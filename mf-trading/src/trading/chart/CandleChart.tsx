import styled from 'styled-components';
import { MONEY_SCALE, formatCount, formatInteger, formatPrice, useChart } from '@repex/shared-ui/ui';
import { withGaps } from './candleGaps';
import { drawOwnLines, type OwnLine } from './ownLines';
import type { Candle } from '../data';

const Box = styled.div`
  width: 100%;
  height: 280px;
`;

/** Seconds since the epoch, as the chart's time axis counts. */
const time = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);
const NONE: OwnLine[] = [];
const ohlc = (c: Candle) => ({ open: c.open, high: c.high, low: c.low, close: c.close });

/**
 * Candlesticks with the volume beneath, drawn by lightweight-charts. An interval without trades
 * has no candle and keeps its place, so quiet periods show as gaps in time. The volume has no label
 * of its own on the price axis, and the candles keep clear of its band.
 */
export function CandleChart({
  candles,
  label,
  step,
  own = NONE,
}: {
  candles: Candle[];
  label: string;
  step: number;
  /** The user's own orders, drawn as lines at their prices. */
  own?: OwnLine[];
}) {
  const box = useChart(
    candles,
    (chart, { CandlestickSeries, HistogramSeries }, data, theme) => {
      chart.applyOptions({ timeScale: { timeVisible: true, secondsVisible: false } });
      const bars = withGaps(
        data.map((c) => ({ time: time(c.bucket), candle: c })),
        step,
      );
      const price = chart.addSeries(CandlestickSeries, {
        upColor: theme.colors.up,
        downColor: theme.colors.down,
        borderVisible: false,
        wickUpColor: theme.colors.up,
        wickDownColor: theme.colors.down,
        priceFormat: MONEY_SCALE,
      });
      price.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0.25 } });
      drawOwnLines(price, own, theme.colors);
      price.setData(
        bars.map((b) => ('candle' in b ? { time: b.time as never, ...ohlc(b.candle) } : { time: b.time as never })),
      );
      const volume = chart.addSeries(HistogramSeries, {
        priceScaleId: 'volume',
        priceFormat: { type: 'volume' },
        lastValueVisible: false,
        priceLineVisible: false,
      });
      volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
      volume.setData(
        bars.map((b) =>
          'candle' in b
            ? {
                time: b.time as never,
                value: b.candle.volume,
                color: b.candle.close >= b.candle.open ? 'rgba(34, 197, 94, 0.35)' : 'rgba(239, 68, 68, 0.35)',
              }
            : { time: b.time as never },
        ),
      );
    },
    own,
  );
  return (
    <Box
      ref={box}
      role="img"
      aria-label={describeCandles(candles, label)}
      data-testid="candle-chart"
      data-candles={candles.length}
    />
  );
}

/** What the candles show, in words: how many, the first open and last close, the range and volume. */
function describeCandles(candles: Candle[], label: string): string {
  if (candles.length === 0) return `${label} candles: no trades yet`;
  const volume = candles.reduce((n, c) => n + c.volume, 0);
  return (
    `${label} candles: ${formatCount(candles.length, 'candle')}, from ${formatPrice(candles[0]!.open)} to ` +
    `${formatPrice(candles.at(-1)!.close)}, low ${formatPrice(Math.min(...candles.map((c) => c.low)))}, ` +
    `high ${formatPrice(Math.max(...candles.map((c) => c.high)))}, ${formatInteger(volume)} tokens traded`
  );
}
