import { CardTitle, Muted, Skeleton } from '@repex/shared-ui/ui';
import type { QueryState } from '@repex/shared-ui/platform';
import { CandleChart } from './CandleChart';
import { CANDLE_INTERVALS, type PricePoint } from './data';
import { PriceChart } from './PriceChart';
import { ChartBar, ChartChoiceButton } from './Trading.styles';
import { intervalSeconds, useCandles, useChartChoice } from './useCandles';

const NAMES = {
  '1m': '1 minute',
  '5m': '5 minutes',
  '15m': '15 minutes',
  '1h': '1 hour',
  '4h': '4 hours',
  '1d': '1 day',
};

/** The price chart: the 24-hour line (spec section 2), or candles of an interval, live. */
export function PriceCard({ tokenId, history }: { tokenId: string; history: QueryState<PricePoint[]> }) {
  const [choice, choose] = useChartChoice();
  const interval = choice === 'line' ? null : choice;
  const candles = useCandles(tokenId, interval);
  return (
    <>
      <CardTitle>{interval ? `Price Chart (candles, ${NAMES[interval]})` : 'Price Chart (24h, hourly)'}</CardTitle>
      <ChartBar role="group" aria-label="Chart">
        <ChartChoiceButton $active={choice === 'line'} aria-pressed={choice === 'line'} onClick={() => choose('line')}>
          Line
        </ChartChoiceButton>
        {CANDLE_INTERVALS.map((i) => (
          <ChartChoiceButton
            key={i}
            $active={choice === i}
            aria-pressed={choice === i}
            title={`Candles of ${NAMES[i]}`}
            onClick={() => choose(i)}
          >
            {i}
          </ChartChoiceButton>
        ))}
      </ChartBar>
      {!interval ? (
        history.data ? (
          <PriceChart points={history.data} />
        ) : (
          <Skeleton $height="280px" />
        )
      ) : candles.data ? (
        candles.data.length ? (
          <CandleChart candles={candles.data} label={NAMES[interval]} step={intervalSeconds(interval)} />
        ) : (
          <Muted>No trades yet: candles appear with the first trade.</Muted>
        )
      ) : (
        <Skeleton $height="280px" />
      )}
    </>
  );
}
