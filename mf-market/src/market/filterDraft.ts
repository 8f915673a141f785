import { RANGES, type Filters, type RangeKey } from './query';

/** The Advanced Filters as typed: each bound as text until it is applied. */
export interface FilterDraft {
  ranges: Record<RangeKey, { min: string; max: string }>;
  verifiedOnly: boolean;
  hideHalted: boolean;
  categories: string[];
}

const text = (n: number | undefined) => (n === undefined ? '' : String(n));

export function draftOf(f: Filters): FilterDraft {
  const ranges = Object.fromEntries(
    RANGES.map(({ key }) => [key, { min: text(f.ranges[key]?.min), max: text(f.ranges[key]?.max) }]),
  ) as FilterDraft['ranges'];
  return { ranges, verifiedOnly: f.verifiedOnly, hideHalted: f.hideHalted, categories: f.categories };
}

/** A bound as typed: nothing, a number, or what is wrong with it. */
function parseBound(key: RangeKey, typed: string): number | undefined | { error: string } {
  const t = typed.trim();
  if (t === '') return undefined;
  const n = /^[-+]?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(n)) return { error: 'Enter a number, like 12.50.' };
  if (key !== 'change' && n < 0) return { error: 'Enter 0 or more.' };
  if (key === 'score' && n > 100) return { error: 'A reputation score is at most 100.' };
  return n;
}

/**
 * The filters a draft asks for, or, by range, what is wrong with it: a bound that is not a
 * number, or a minimum above its maximum. Nothing is applied while anything is wrong.
 */
export function filtersOf(d: FilterDraft): { filters: Filters } | { errors: Partial<Record<RangeKey, string>> } {
  const errors: Partial<Record<RangeKey, string>> = {};
  const ranges: Filters['ranges'] = {};
  for (const { key } of RANGES) {
    const min = parseBound(key, d.ranges[key].min);
    const max = parseBound(key, d.ranges[key].max);
    if (typeof min === 'object') errors[key] = min.error;
    else if (typeof max === 'object') errors[key] = max.error;
    else if (min !== undefined && max !== undefined && min > max) errors[key] = 'The minimum is above the maximum.';
    else if (min !== undefined || max !== undefined) ranges[key] = { min, max };
  }
  if (Object.keys(errors).length) return { errors };
  return {
    filters: { ranges, verifiedOnly: d.verifiedOnly, hideHalted: d.hideHalted, categories: d.categories },
  };
}
