import styled from 'styled-components';
import type { PortfolioDay } from '@repex/shared-ui/contracts';
import { MONEY_SCALE, Muted, useChart } from '@repex/shared-ui/ui';

/** Nothing held on any day of the period: a flat zero line would draw an axis of ±$0.05 around nothing. */
const nothingHeld = (days: PortfolioDay[]) => days.every((d) => d.value === 0);

const Box = styled.div`
  width: 100%;
  height: 220px;
`;
const Legend = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 4px 16px;
  font-size: 13px;
`;
const Key = styled.span<{ $tone: 'primary' | 'muted' }>`
  &::before {
    content: '';
    display: inline-block;
    width: 12px;
    height: 3px;
    margin-right: 6px;
    vertical-align: middle;
    background: ${({ theme, $tone }) => theme.colors[$tone]};
  }
`;

/** The portfolio's closing value, day by day. */
export function ValueChart({ days }: { days: PortfolioDay[] }) {
  const empty = nothingHeld(days);
  const box = useChart(empty ? undefined : days, (chart, { AreaSeries }, data, theme) => {
    chart
      .addSeries(AreaSeries, {
        lineColor: theme.colors.primary,
        topColor: `${theme.colors.primary}55`,
        bottomColor: `${theme.colors.primary}05`,
        lineWidth: 2,
        priceFormat: MONEY_SCALE,
      })
      .setData(data.map((d) => ({ time: d.day as never, value: d.value })));
  });
  if (empty) return <Muted>Nothing held in this period: the value shows here once you hold cash or tokens.</Muted>;
  return <Box ref={box} data-testid="value-chart" role="img" aria-label="Portfolio value by day" />;
}

/** The time-weighted return beside the RepX index's, in percent since the opening. */
export function ReturnChart({ days }: { days: PortfolioDay[] }) {
  const empty = nothingHeld(days);
  const box = useChart(empty ? undefined : days, (chart, { LineSeries }, data, theme) => {
    const percent = { type: 'custom' as const, formatter: (v: number) => `${v.toFixed(2)}%`, minMove: 0.01 };
    chart
      .addSeries(LineSeries, { color: theme.colors.primary, lineWidth: 2, priceFormat: percent })
      .setData(data.map((d) => ({ time: d.day as never, value: d.twr })));
    chart
      .addSeries(LineSeries, { color: theme.colors.muted, lineWidth: 2, lineStyle: 2, priceFormat: percent })
      .setData(data.flatMap((d) => (d.index_return === null ? [] : [{ time: d.day as never, value: d.index_return }])));
  });
  if (empty) return <Muted>No return yet: it starts with your first deposit.</Muted>;
  return (
    <>
      <Box
        ref={box}
        data-testid="return-chart"
        role="img"
        aria-label="Time-weighted return and the RepX Index by day"
      />
      <Legend>
        <Key $tone="primary">Your portfolio</Key>
        <Key $tone="muted">RepX Index (dashed)</Key>
      </Legend>
    </>
  );
}
