import styled from 'styled-components';
import type { PortfolioDay } from '@repex/shared-ui/contracts';
import { MONEY_SCALE, useChart } from '@repex/shared-ui/ui';

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
  const box = useChart(days, (chart, { AreaSeries }, data, theme) => {
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
  return <Box ref={box} data-testid="value-chart" role="img" aria-label="Portfolio value by day" />;
}

/** The time-weighted return beside the RepX index's, in percent since the opening. */
export function ReturnChart({ days }: { days: PortfolioDay[] }) {
  const box = useChart(days, (chart, { LineSeries }, data, theme) => {
    const percent = { type: 'custom' as const, formatter: (v: number) => `${v.toFixed(2)}%`, minMove: 0.01 };
    chart
      .addSeries(LineSeries, { color: theme.colors.primary, lineWidth: 2, priceFormat: percent })
      .setData(data.map((d) => ({ time: d.day as never, value: d.twr })));
    chart
      .addSeries(LineSeries, { color: theme.colors.muted, lineWidth: 2, lineStyle: 2, priceFormat: percent })
      .setData(data.flatMap((d) => (d.index_return === null ? [] : [{ time: d.day as never, value: d.index_return }])));
  });
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
