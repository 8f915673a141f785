import { CardTitle, Muted, Skeleton } from '@repex/shared-ui/ui';
import type { QueryState } from '@repex/shared-ui/platform';
import { CandleChart } from './CandleChart';
import { CANDLE_INTERVALS, LINE_RANGES, type LineRange, type PricePoint } from '../data';
import type { OwnLine } from './ownLines';
import { PriceChart } from './PriceChart';
import { ChartBar, ChartChoiceButton } from '../Trading.styles';
import { intervalSeconds, useCandles, useChartChoice, useLongLine } from './useCandles';

const NAMES = {
  '1m': '1 minute',
  '5m': '5 minutes',
  '15m': '15 minutes',
  '1h': '1 hour',
  '4h': '4 hours',
  '1d': '1 day',
};

/** Each range's button and the chart's title for it. */
const RANGES: Record<LineRange, { button: string; title: string; every: 'Hourly' | 'Daily' }> = {
  '24h': { button: '24H', title: 'Price Chart (24h, hourly)', every: 'Hourly' },
  '1w': { button: '1W', title: 'Price Chart (1 week, hourly)', every: 'Hourly' },
  '1m': { button: '1M', title: 'Price Chart (1 month, hourly)', every: 'Hourly' },
  '1y': { button: '1Y', title: 'Price Chart (1 year, daily)', every: 'Daily' },
  all: { button: 'All', title: 'Price Chart (all time, daily)', every: 'Daily' },
};

/**
 * The price chart: the line over 24 hours (spec section 2, kept live), a week, a month, a year or
 * all time; or candles of an interval, live.
 */
export function PriceCard({
  tokenId,
  history,
  own,
}: {
  tokenId: string;
  history: QueryState<PricePoint[]>;
  /** The user's own orders and stops, marked on the chart. */
  own: OwnLine[];
}) {
  const [choice, choose] = useChartChoice();
  const interval = choice.kind === 'candles' ? choice.interval : null;
  const range = choice.kind === 'line' ? choice.range : null;
  const candles = useCandles(tokenId, interval);
  const longLine = useLongLine(tokenId, range);
  const line = range === '24h' ? history : longLine;
  return (
    <>
      <CardTitle>{interval ? `Price Chart (candles, ${NAMES[interval]})` : RANGES[range!].title}</CardTitle>
      <ChartBar role="group" aria-label="Chart">
        <div>
          <ChartChoiceButton
            $active={!interval}
            aria-pressed={!interval}
            onClick={() => choose({ kind: 'line', range: '24h' })}
          >
            Line
          </ChartChoiceButton>
          <ChartChoiceButton
            $active={!!interval}
            aria-pressed={!!interval}
            onClick={() => choose({ kind: 'candles', interval: interval ?? '1h' })}
          >
            Candles
          </ChartChoiceButton>
        </div>
        <div>
          {interval
            ? CANDLE_INTERVALS.map((i) => (
                <ChartChoiceButton
                  key={i}
                  $active={interval === i}
                  aria-pressed={interval === i}
                  title={`Candles of ${NAMES[i]}`}
                  onClick={() => choose({ kind: 'candles', interval: i })}
                >
                  {i}
                </ChartChoiceButton>
              ))
            : LINE_RANGES.map((r) => (
                <ChartChoiceButton
                  key={r}
                  $active={range === r}
                  aria-pressed={range === r}
                  title={RANGES[r].title.replace('Price Chart ', 'The line over ')}
                  onClick={() => choose({ kind: 'line', range: r })}
                >
                  {RANGES[r].button}
                </ChartChoiceButton>
              ))}
        </div>
      </ChartBar>
      {!interval ? (
        line.data ? (
          line.data.some((p) => p.price !== null) ? (
            <PriceChart points={line.data} every={RANGES[range!].every} own={own} />
          ) : (
            <Muted>No trades in this range yet.</Muted>
          )
        ) : (
          <Skeleton $height="280px" />
        )
      ) : candles.data ? (
        candles.data.length ? (
          <CandleChart candles={candles.data} label={NAMES[interval]} step={intervalSeconds(interval)} own={own} />
        ) : (
          <Muted>No trades yet: candles appear with the first trade.</Muted>
        )
      ) : (
        <Skeleton $height="280px" />
      )}
    </>
  );
}
