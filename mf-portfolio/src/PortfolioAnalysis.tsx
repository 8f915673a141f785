import styled from 'styled-components';
import {
  Button,
  Card,
  CardGrid,
  CardTitle,
  Change,
  ErrorState,
  Muted,
  Page,
  PageHeader,
  Skeleton,
  StatCard,
  formatChange,
  formatPrice,
  formatSignedPrice,
  media,
} from '@repex/shared-ui/ui';
import { Allocation } from './analysis/Allocation';
import { CustomRange } from './analysis/CustomRange';
import { BestWorst } from './analysis/BestWorst';
import { ReturnChart, ValueChart } from './analysis/Charts';
import { PERIODS } from './analysis/data';
import { LotsTable } from './analysis/LotsTable';
import { useAnalysis } from './analysis/useAnalysis';

const Periods = styled.div`
  display: flex;
  gap: 6px;
  flex-wrap: wrap;
`;
const Two = styled.div`
  display: grid;
  grid-template-columns: repeat(2, minmax(0, 1fr));
  gap: 16px;
  ${media.tablet} {
    grid-template-columns: minmax(0, 1fr);
  }
`;

/** Portfolio Analysis: value over time, return against the RepX Index, allocation, lots, best and worst. */
export default function PortfolioAnalysis() {
  const { period, range, choose, chooseRange, analysis, data, refusal, summary } = useAnalysis();
  const periodName = PERIODS.find((p) => p.id === period)!.label;
  return (
    <Page data-remote="portfolio">
      <PageHeader
        title="Portfolio Analysis"
        subtitle="Your cash and tokens over time, rebuilt day by day from your trades and cash movements."
        actions={
          <Periods role="group" aria-label="Period">
            {PERIODS.map((p) => (
              <Button
                key={p.id}
                $size="sm"
                $variant={p.id === period ? 'default' : 'outline'}
                aria-pressed={p.id === period}
                onClick={() => choose(p.id)}
              >
                {p.label}
              </Button>
            ))}
          </Periods>
        }
      />
      {range && <CustomRange key={`${range.from}/${range.to}`} range={range} refusal={refusal} onApply={chooseRange} />}
      {analysis.error && !data && !refusal && (
        <Card>
          <ErrorState
            title="Your analysis could not be loaded."
            message={analysis.error.message}
            onRetry={analysis.reload}
          />
        </Card>
      )}
      {/* Dates the database refused have no figures: the form says why. */}
      {!refusal && (
        <>
          <CardGrid $columns={5}>
            <StatCard
              label="Portfolio Value"
              value={summary && formatPrice(summary.value)}
              hint={range ? "Cash and tokens, at the last day's close" : 'Cash and tokens, now'}
            />
            <StatCard
              label={`Gain (${periodName})`}
              value={summary && <Change $value={summary.gain}>{formatSignedPrice(summary.gain)}</Change>}
              hint="Change in value, less money put in or taken out"
            />
            <StatCard
              label={`Time-Weighted Return (${periodName})`}
              value={summary && <Change $value={summary.twr}>{formatChange(summary.twr)}</Change>}
              hint="Each day's return chained, deposits and withdrawals left out"
            />
            <StatCard
              label={`Money-Weighted Return (${periodName})`}
              value={
                summary &&
                (summary.mwr === null ? '—' : <Change $value={summary.mwr}>{formatChange(summary.mwr)}</Change>)
              }
              hint={
                summary?.mwr === null
                  ? 'More was taken out than was at work'
                  : 'The gain over the money at work, each deposit by the days it was in'
              }
            />
            <StatCard
              label={`RepX Index (${periodName})`}
              value={
                summary &&
                (summary.index === null ? '—' : <Change $value={summary.index}>{formatChange(summary.index)}</Change>)
              }
              hint={summary?.index === null ? 'The index had not started' : 'The market benchmark, same days'}
            />
          </CardGrid>
          <Two>
            <Card aria-label="Value over time">
              <CardTitle>Value Over Time</CardTitle>
              {data ? <ValueChart days={data.days} /> : <Skeleton $width="100%" $height="220px" />}
            </Card>
            <Card aria-label="Return against the RepX Index">
              <CardTitle>Return vs RepX Index</CardTitle>
              {data ? <ReturnChart days={data.days} /> : <Skeleton $width="100%" $height="220px" />}
              <Muted>
                Time-weighted return: how your holdings performed, whatever you deposited or withdrew, so it compares
                with the index. Money-weighted return (Modified Dietz): what your money earned while it was in, so a
                deposit just before a fall counts against it.
              </Muted>
            </Card>
          </Two>
          <Two>
            <Card aria-label="Allocation">
              <CardTitle>Allocation</CardTitle>
              {data && <Allocation positions={data.positions} />}
            </Card>
            <Card aria-label="Best and worst positions">
              <CardTitle>Best and Worst ({periodName})</CardTitle>
              {data && <BestWorst returns={data.returns} />}
            </Card>
          </Two>
          <Card aria-label="Realized gains by lot">
            <CardTitle>Realized Gains by Lot ({periodName})</CardTitle>
            <Muted>
              First in, first out: each sale is matched to your oldest purchases of that token still held. A lot&apos;s
              cost includes its buying fee; a sale&apos;s fee is shared across the lots it took.
            </Muted>
            {data && <LotsTable sales={data.sales} />}
          </Card>
        </>
      )}
    </Page>
  );
}
