import styled from 'styled-components';
import {
  Card,
  CardTitle,
  Change,
  ErrorState,
  POINTS_SCALE,
  Muted,
  Skeleton,
  formatChange,
  formatInteger,
  formatLevel,
  formatShare,
  media,
  useChart,
} from '@repex/shared-ui/ui';
import { useRepxIndex } from './useRepxIndex';
import type { FirstRead } from '@repex/shared-ui/platform';
import type { MarketScreenRead } from './data';

const Head = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  justify-content: space-between;
  gap: 4px 16px;
`;
const Level = styled.div`
  font-size: 28px;
  font-weight: 700;
  font-variant-numeric: tabular-nums;
`;
const Body = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 2fr) minmax(0, 1fr);
  gap: 16px;
  margin-top: 12px;
  ${media.tablet} {
    grid-template-columns: minmax(0, 1fr);
  }
`;
const ChartBox = styled.div`
  width: 100%;
  height: 180px;
`;
const Members = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  font-size: 14px;
  li {
    display: flex;
    justify-content: space-between;
    gap: 8px;
    padding: 4px 0;
  }
`;

/** The market's benchmark: its level now, its change over 24 hours, a week of hourly levels and its members. */
export function IndexCard({ first }: { first: FirstRead<MarketScreenRead> }) {
  const index = useRepxIndex(first);
  const m = index.method;
  const box = useChart(index.points, (chart, { LineSeries }, data, theme) => {
    chart.applyOptions({ timeScale: { timeVisible: true, secondsVisible: false } });
    let last = -Infinity;
    const series = data.flatMap((p) => {
      const time = Math.floor(Date.parse(p.at) / 1000);
      if (time <= last) return []; // the library takes strictly later times only
      last = time;
      return [{ time: time as never, value: p.level }];
    });
    chart
      .addSeries(LineSeries, {
        color: theme.colors.primary,
        lineWidth: 2,
        priceFormat: POINTS_SCALE,
      })
      .setData(series);
  });

  return (
    <Card aria-label="RepX Index">
      <Head>
        <CardTitle>RepX Index</CardTitle>
        {index.level !== undefined && (
          <div>
            <Level data-testid="index-level">{formatLevel(index.level)}</Level>
            {index.change !== undefined && (
              <Change $value={index.change}>
                {formatChange(index.change)} ({index.changeSince})
              </Change>
            )}
          </div>
        )}
      </Head>
      {m && (
        <Muted>
          The market&apos;s benchmark: tokens listed for {m.listed_days} days and traded in the last {m.traded_days},
          weighted by market cap with at most {m.weight_cap * 100}% each, rebalanced daily at 00:00 UTC. It started at{' '}
          {formatInteger(m.base_level)}.
        </Muted>
      )}
      {index.error ? (
        <ErrorState title="The index could not be loaded." onRetry={index.reload} />
      ) : index.loading && index.level === undefined ? (
        <Skeleton $height="180px" $width="100%" />
      ) : index.level === undefined ? (
        <Muted as="p">
          The index starts once {m?.min_members} tokens have been listed for {m?.listed_days} days and traded in the
          last {m?.traded_days}.
        </Muted>
      ) : (
        <Body>
          <ChartBox
            ref={box}
            role="img"
            aria-label={`RepX Index, hourly over the last 7 days: now ${formatLevel(index.level)}`}
            data-testid="index-chart"
          />
          <Members aria-label="Index members">
            {index.members.map((m) => (
              <li key={m.token_id}>
                <span>{m.name}</span>
                <Muted>{formatShare(m.weight)}</Muted>
              </li>
            ))}
          </Members>
        </Body>
      )}
    </Card>
  );
}
