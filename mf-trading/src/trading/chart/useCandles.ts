import { useSearchParams } from 'react-router';
import { useMarketFeed, useQuery } from '@repex/shared-ui/platform';
import { CANDLE_INTERVALS, LINE_RANGES, loadCandles, loadLine, type CandleInterval, type LineRange } from '../data';
import { patchCandles, ticksOf } from '../live';

/** What the price chart shows: the line over a range, or candles of an interval. */
export type ChartChoice = { kind: 'line'; range: LineRange } | { kind: 'candles'; interval: CandleInterval };

/**
 * The chart's choice, kept in the address (?chart=15m for candles, ?range=1w for the line), so a
 * reload or a shared link keeps it. No parameter: the spec's 24-hour line.
 */
export function useChartChoice(): [ChartChoice, (choice: ChartChoice) => void] {
  const [params, setParams] = useSearchParams();
  const asked = params.get('chart');
  const range = params.get('range');
  const choice: ChartChoice = (CANDLE_INTERVALS as readonly string[]).includes(asked ?? '')
    ? { kind: 'candles', interval: asked as CandleInterval }
    : { kind: 'line', range: (LINE_RANGES as readonly string[]).includes(range ?? '') ? (range as LineRange) : '24h' };
  const choose = (next: ChartChoice) =>
    setParams(
      (p) => {
        const q = new URLSearchParams(p);
        q.delete('chart');
        q.delete('range');
        if (next.kind === 'candles') q.set('chart', next.interval);
        else if (next.range !== '24h') q.set('range', next.range);
        return q;
      },
      { replace: true },
    );
  return [choice, choose];
}

/** The line beyond the 24 hours the screen keeps live: read when chosen. */
export function useLongLine(tokenId: string, range: LineRange | null) {
  return useQuery(async () => (range && range !== '24h' ? loadLine(tokenId, range) : []), [tokenId, range]);
}

/** An interval's length: '15m' is 900 seconds, '4h' 14,400, '1d' 86,400 (buckets start at the Unix epoch). */
export const intervalSeconds = (interval: CandleInterval) =>
  Number(interval.slice(0, -1)) * { m: 60, h: 3_600, d: 86_400 }[interval.slice(-1) as 'm' | 'h' | 'd'];

/** A token's candles of `interval` (none while the line is shown), with each trade on it folded in as it happens. */
export function useCandles(tokenId: string, interval: CandleInterval | null) {
  const candles = useQuery(async () => (interval ? loadCandles(tokenId, interval) : []), [tokenId, interval]);
  useMarketFeed((ticks) => {
    const mine = ticksOf(ticks, tokenId);
    if (interval && mine.length) candles.patch((c) => patchCandles(c, mine, intervalSeconds(interval)));
  }, candles.reload);
  return candles;
}
