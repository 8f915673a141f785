import { useSearchParams } from 'react-router';
import { useMarketEvents, useQuery } from '@repex/shared-ui/platform';
import { CANDLE_INTERVALS, loadCandles, type CandleInterval } from './data';

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

/** A token's candles of `interval` (none while the line is shown), read again at each trade on it. */
export function useCandles(tokenId: string, interval: CandleInterval | null) {
  const candles = useQuery(async () => (interval ? loadCandles(tokenId, interval) : []), [tokenId, interval]);
  useMarketEvents(tokenId, (kinds) => {
    if (interval && kinds.has('trade')) candles.reload();
  });
  return candles;
}
