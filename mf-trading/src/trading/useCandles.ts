import { useSearchParams } from 'react-router';
import { useMarketFeed, useQuery } from '@repex/shared-ui/platform';
import { CANDLE_INTERVALS, loadCandles, type CandleInterval } from './data';
import { patchCandles, ticksOf } from './live';

/** What the price chart shows: the 24-hour line, or candles of an interval. */
export type ChartChoice = 'line' | CandleInterval;

/** The chart's choice, kept in the address (?chart=15m), so a reload or a shared link keeps it. */
export function useChartChoice(): [ChartChoice, (choice: ChartChoice) => void] {
  const [params, setParams] = useSearchParams();
  const asked = params.get('chart');
  const choice: ChartChoice = (CANDLE_INTERVALS as readonly string[]).includes(asked ?? '')
    ? (asked as CandleInterval)
    : 'line';
  const choose = (next: ChartChoice) =>
    setParams(
      (p) => {
        const q = new URLSearchParams(p);
        if (next === 'line') q.delete('chart');
        else q.set('chart', next);
        return q;
      },
      { replace: true },
    );
  return [choice, choose];
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
