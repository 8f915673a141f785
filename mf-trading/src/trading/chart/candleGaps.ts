/**
 * The most slots a chart draws, quiet ones included, the latest kept: as many as the candles read
 * (loadCandles), so the chart covers a fixed stretch of time (300 five-minute slots: 25 hours).
 */
const MAX_BARS = 300;

/**
 * The chart's time axis, one slot per interval: each candle at its time, and an empty slot (time
 * only: lightweight-charts draws a gap) for each interval without trades between them, so quiet
 * periods show as gaps rather than squeezed out. At most `maxBars` slots, the latest.
 */
export function withGaps<T extends { time: number }>(
  bars: T[],
  stepSeconds: number,
  maxBars = MAX_BARS,
): (T | { time: number })[] {
  const out: (T | { time: number })[] = [];
  for (let i = bars.length - 1; i >= 0 && out.length < maxBars; i--) {
    const bar = bars[i]!;
    const next = out.at(-1);
    for (let t = (next?.time ?? bar.time) - stepSeconds; next && t > bar.time && out.length < maxBars; t -= stepSeconds)
      out.push({ time: t });
    if (out.length < maxBars) out.push(bar);
  }
  return out.reverse();
}
