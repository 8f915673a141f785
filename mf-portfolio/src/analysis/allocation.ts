import type { Position } from '@repex/shared-ui/contracts';

export interface Slice {
  label: string;
  value: number;
  /** Of the positions' total, 0 to 1. */
  share: number;
}

/** The positions' value grouped by token or by category, largest first, each with its share. */
export function allocation(
  positions: Pick<Position, 'name' | 'category' | 'value'>[],
  by: 'token' | 'category',
): Slice[] {
  const total = positions.reduce((sum, p) => sum + p.value, 0);
  const groups = new Map<string, number>();
  for (const p of positions) {
    const label = by === 'token' ? p.name : p.category;
    groups.set(label, (groups.get(label) ?? 0) + p.value);
  }
  return [...groups]
    .map(([label, value]) => ({ label, value, share: total > 0 ? value / total : 0 }))
    .sort((a, b) => b.value - a.value || a.label.localeCompare(b.label));
}
