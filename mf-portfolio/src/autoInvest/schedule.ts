import type { InvestPlan } from '@repex/shared-ui/contracts';

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** 1 -> '1st', 22 -> '22nd', 31 -> '31st'. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10];
  return `${n}${suffix ?? 'th'}`;
}

/** How often a plan runs, in words: 'Daily', 'Weekly on Monday', 'Monthly on the 31st'. */
export function scheduleWords(plan: Pick<InvestPlan, 'frequency' | 'run_day'>): string {
  if (plan.frequency === 'weekly') return `Weekly on ${WEEKDAYS[(plan.run_day ?? 1) - 1]}`;
  if (plan.frequency === 'monthly') return `Monthly on the ${ordinal(plan.run_day ?? 1)}`;
  return 'Daily';
}

/** What a plan buys, in words. */
export function targetWords(plan: Pick<InvestPlan, 'token_name'>): string {
  return plan.token_name ?? 'the RepX Index basket';
}
