import { useState } from 'react';
import type { InvestPlan } from '@repex/shared-ui/contracts';
import type { PlanTerms } from './data';

type Frequency = PlanTerms['frequency'];

/** The value of the form's "Buy" choice that stands for the index basket (tokens are uuids). */
export const INDEX_CHOICE = 'index';

/**
 * The plan form's fields as typed, and the terms they make. The amount and the schedule are
 * checked by the database (create_invest_plan), which says what is wrong in words; here only a
 * field that is not a number at all is caught, so nothing is sent for it.
 */
export function usePlanForm(plan?: InvestPlan) {
  const [amount, setAmount] = useState(plan ? String(plan.amount) : '');
  const [target, setTarget] = useState(plan?.token_id ?? INDEX_CHOICE);
  const [frequency, setFrequency] = useState<Frequency>((plan?.frequency as Frequency | undefined) ?? 'daily');
  const [weekday, setWeekday] = useState(plan?.frequency === 'weekly' ? String(plan.run_day) : '1');
  const [date, setDate] = useState(plan?.frequency === 'monthly' ? String(plan.run_day) : '1');

  /** The terms to send, or the reason the form cannot send them. */
  const terms = (): PlanTerms | string => {
    const value = Number(amount.trim());
    if (amount.trim() === '' || !Number.isFinite(value)) return 'Enter the amount each run buys, in dollars.';
    return {
      amount: value,
      frequency,
      day: frequency === 'weekly' ? Number(weekday) : frequency === 'monthly' ? Number(date) : null,
      tokenId: target === INDEX_CHOICE ? null : target,
    };
  };
  return { amount, setAmount, target, setTarget, frequency, setFrequency, weekday, setWeekday, date, setDate, terms };
}
