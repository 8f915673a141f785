import styled, { useTheme } from 'styled-components';
import { type PnlPoint } from '@repex/shared-ui/contracts';
import { useQuery } from '@repex/shared-ui/platform';
import { loadPnl } from './data';
import {
  CardGrid,
  Change,
  EmptyState,
  ErrorState,
  StatCard,
  formatMoney,
  formatSignedMoney,
  MONEY_SCALE,
  useChart,
} from '@repex/shared-ui/ui';

const Chart = styled.div`
  width: 100%;
  height: 260px;
  margin-top: 16px;
`;
const Legend = styled.p`
  display: flex;
  gap: 16px;
  flex-wrap: wrap;
  margin: 8px 0 0;
  font-size: 13px;
  span::before {
    content: '';
    display: inline-block;
    width: 10px;
    height: 10px;
    border-radius: 2px;
    margin-right: 6px;
    background: var(--swatch);
  }
`;

/** Realized and unrealized P&L over the last 30 days, computed by the database (public.my_pnl). */
export function ProfitLoss({ version }: { version: number }) {
  const pnl = useQuery(() => loadPnl(30), [version]);
  const theme = useTheme();
  const points = pnl.data;
  const now = points?.[points.length - 1];
  const box = useChart(points, (chart, { LineSeries }, data) => {
    const time = (p: PnlPoint) => Math.floor(new Date(p.at).getTime() / 1000) as never;
    const line = (color: string, pick: (p: PnlPoint) => number) =>
      chart
        .addSeries(LineSeries, { color, lineWidth: 2, priceFormat: MONEY_SCALE })
        .setData(data.map((p) => ({ time: time(p), value: pick(p) })));
    line(theme.colors.accent, (p) => p.realized);
    line(theme.colors.primary, (p) => p.unrealized);
  });

  if (pnl.error && !points)
    return (
      <ErrorState title="Your profit and loss could not be loaded." message={pnl.error.message} onRetry={pnl.reload} />
    );
  return (
    <div data-testid="pnl">
      <CardGrid>
        <StatCard
          label="Realized P&L"
          value={now && <Change $value={now.realized}>{formatSignedMoney(now.realized)}</Change>}
        />
        <StatCard
          label="Unrealized P&L"
          value={now && <Change $value={now.unrealized}>{formatSignedMoney(now.unrealized)}</Change>}
        />
        <StatCard label="Invested" value={now && formatMoney(now.invested)} />
        <StatCard label="Holdings Value" value={now && formatMoney(now.value)} />
      </CardGrid>
      {points && points.every((p) => p.invested === 0 && p.realized === 0) ? (
        <EmptyState>Your profit and loss appears here once you trade.</EmptyState>
      ) : (
        <>
          <Chart
            ref={box}
            role="img"
            data-testid="pnl-chart"
            aria-label={
              now
                ? `Profit and loss over 30 days: realized ${formatSignedMoney(now.realized)}, unrealized ${formatSignedMoney(now.unrealized)} now.`
                : 'Profit and loss chart'
            }
          />
          <Legend aria-hidden="true">
            <span style={{ ['--swatch' as string]: theme.colors.accent }}>Realized</span>
            <span style={{ ['--swatch' as string]: theme.colors.primary }}>Unrealized</span>
          </Legend>
        </>
      )}
    </div>
  );
}
