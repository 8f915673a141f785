/**
 * Number display of spec section 9: 1,000,000 or more as x.xM, 1,000 or more as xK (rounded),
 * otherwise two decimals; US dollars; prices 2 decimals, changes 1 decimal.
 *
 * Rounding is decimal (half away from zero on the written digits), so 999.995 reads as 1K and
 * not 999.99 through binary floating point; a value that rounds up into the next unit is shown in
 * that unit (999,999 is 1.0M, never 1000K).
 */
/** Decimal rounding, half away from zero: roundTo(2.675, 2) is 2.68, not 2.67. */
export function roundTo(value: number, digits: number): number {
  const sign = value < 0 ? -1 : 1;
  const shifted = Math.round(Number(`${Math.abs(value)}e${digits}`));
  return sign * Number(`${shifted}e-${digits}`);
}

function compactAbs(abs: number): string {
  const cents = roundTo(abs, 2);
  if (cents < 1_000) return cents.toFixed(2);
  const thousands = roundTo(abs / 1_000, 0);
  if (thousands < 1_000) return `${thousands}K`;
  return `${roundTo(abs / 1_000_000, 1).toFixed(1)}M`;
}

/** 1.5M, 12K, 999.50 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const text = compactAbs(Math.abs(value));
  return value < 0 && text !== '0.00' ? `-${text}` : text;
}

/** $1.5M, $12K, $999.50, -$3K */
export function formatMoney(value: number): string {
  const text = formatNumber(value);
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}

/** A gain or loss in the compact money format, with its sign: +$1.2K, -$30.00, $0.00 */
export function formatSignedMoney(value: number): string {
  return value > 0 && formatNumber(value) !== '0.00' ? `+${formatMoney(value)}` : formatMoney(value);
}

const priceFormat = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** A price, always in full with two decimals: $1,234.56 */
export function formatPrice(value: number): string {
  if (!Number.isFinite(value)) return '—';
  return priceFormat.format(roundTo(value, 2));
}

/** A gain or loss in full, with its sign: +$1,234.56, -$30.00, $0.00 */
export function formatSignedPrice(value: number): string {
  return roundTo(value, 2) > 0 ? `+${formatPrice(value)}` : formatPrice(value);
}

const levelFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** An index level, in full with two decimals and no currency: 1,050.00 */
export function formatLevel(value: number): string {
  return Number.isFinite(value) ? levelFormat.format(roundTo(value, 2)) : '—';
}

/** A share of a whole (0.25) in percent with one decimal: 25.0% */
export function formatShare(value: number): string {
  return Number.isFinite(value) ? `${roundTo(value * 100, 1).toFixed(1)}%` : '—';
}

/** A change in percent with one decimal and its sign: +5.2%, -3.1%, 0.0% */
export function formatChange(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const rounded = roundTo(value, 1);
  const text = Math.abs(rounded).toFixed(1);
  if (rounded > 0) return `+${text}%`;
  if (rounded < 0) return `-${text}%`;
  return `${text}%`;
}

const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Whole counts (tokens, holders) with thousands separators: 12,450 */
export function formatInteger(value: number): string {
  return Number.isFinite(value) ? integerFormat.format(value) : '—';
}

/** 2026-11-22T10:00:00Z -> Nov 22, 2026 */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

/** A calendar date as the database keeps it (2026-11-27) -> Nov 27, 2026, in any time zone. */
export function formatDay(date: string): string {
  return new Date(`${date.slice(0, 10)}T00:00:00Z`).toLocaleDateString('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
}

/** 2026-11-22T10:05:00Z -> 10:05 AM (local time) */
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' });
}

/** A count of things, singular or plural: '1 trade', '1,204 trades', '3 suspicious patterns'. */
export function formatCount(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatInteger(count)} ${count === 1 ? singular : plural}`;
}

/** A count of tokens, singular or plural: '1 Sarah Chen token', '20 tokens'. */
export function formatTokens(amount: number, name?: string): string {
  return formatCount(amount, name ? `${name} token` : 'token');
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** What is left of a wait, to the second: '2d 03h 04m', '23h 04m 09s', '4m 09s', '9s'; '0s' once it has passed. */
export function formatCountdown(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const [days, hours, minutes, seconds] = [
    Math.floor(s / 86_400),
    Math.floor(s / 3600) % 24,
    Math.floor(s / 60) % 60,
    s % 60,
  ];
  if (days > 0) return `${days}d ${pad2(hours)}h ${pad2(minutes)}m`;
  if (hours > 0) return `${hours}h ${pad2(minutes)}m ${pad2(seconds)}s`;
  if (minutes > 0) return `${minutes}m ${pad2(seconds)}s`;
  return `${seconds}s`;
}
