import { useEffect, useEffectEvent, useRef } from 'react';
import { useTheme } from 'styled-components';
import type { IChartApi } from 'lightweight-charts';
import { formatPrice } from '../format';
import type { Theme } from '../theme';

/** The series types a screen may add (named, so the rest of the library is left out of the chunk). */
export type Charts = Pick<
  typeof import('lightweight-charts'),
  'AreaSeries' | 'LineSeries' | 'CandlestickSeries' | 'HistogramSeries'
>;

/**
 * A lightweight-charts chart (TradingView's financial charting library) in the app's look:
 * transparent, themed text and grid, no scroll or zoom, fitted to its data. The library is
 * fetched only when a screen first draws one. `draw` adds the series for `data`; a new chart is
 * drawn when `data` or the theme changes, and none while `data` is empty.
 * Returns the ref of the element to draw in.
 */
export function useChart<T>(
  data: readonly T[] | undefined,
  draw: (chart: IChartApi, charts: Charts, data: readonly T[], theme: Theme) => void,
  /** Anything else the drawing shows (a new value redraws it): the user's own orders' lines, say. */
  also?: unknown,
) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  const drawLatest = useEffectEvent(draw);

  useEffect(() => {
    if (!box.current || !data?.length) return;
    let disposed = false;
    let cleanup = () => {};
    // Each name spelled out: the bundler keeps only the exports it sees used.
    void import('lightweight-charts').then((lib) => {
      const { createChart, ColorType, AreaSeries, LineSeries, CandlestickSeries, HistogramSeries } = lib;
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
        timeScale: { borderColor: theme.colors.border },
        handleScroll: false,
        handleScale: false,
      });
      drawLatest(chart, { AreaSeries, LineSeries, CandlestickSeries, HistogramSeries }, data, theme);
      chart.timeScale().fitContent();
      cleanup = () => chart.remove();
    });
    return () => {
      disposed = true;
      cleanup();
    };
  }, [data, theme, also]);

  return box;
}

/** Dollars with cents on a chart's price scale, as everywhere else: $1,012.37. */
export const MONEY_SCALE = { type: 'custom', minMove: 0.01, formatter: formatPrice } as const;

const points = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** Index points with two decimals and thousands separators on a chart's scale: 1,012.37. */
export const POINTS_SCALE = { type: 'custom', minMove: 0.01, formatter: (n: number) => points.format(n) } as const;
