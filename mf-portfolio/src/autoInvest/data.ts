import type { InvestPlan, InvestRunRow } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

/** A plan's terms as the form sets them: a token, or null for the RepX index basket. */
export interface PlanTerms {
  amount: number;
  frequency: 'daily' | 'weekly' | 'monthly';
  /** weekly: ISO weekday 1 (Monday) to 7; monthly: the date 1 to 31; daily: null. */
  day: number | null;
  tokenId: string | null;
}

/** A token a plan may buy. */
export interface TokenChoice {
  id: string;
  name: string;
}

/** What a run of `amount` would buy now, of one token or (null) the index basket (public.preview_invest_plan). */
export const loadPreview = async (amount: number, tokenId: string | null) =>
  unwrap(
    await supabase().rpc('preview_invest_plan', { p_amount: amount, p_token: tokenId ?? undefined }, { get: true }),
  );

/** The caller's plans, oldest first, each with its last run (public.my_invest_plans). */
export async function loadPlans(): Promise<InvestPlan[]> {
  return supabase().from('my_invest_plans').select('*').order('created_at').then(unwrap);
}

/** The caller's runs, newest first: one row per token a run bought or tried (public.my_invest_runs). */
export async function loadRuns(limit = 200): Promise<InvestRunRow[]> {
  return supabase()
    .from('my_invest_runs')
    .select('*')
    .order('period', { ascending: false })
    .order('run_id', { ascending: false })
    .limit(limit)
    .then(unwrap);
}

/** The listed tokens, by name, for the form's choice. */
export async function loadTokenChoices(): Promise<TokenChoice[]> {
  return supabase().from('tokens').select('id, name').order('name').then(unwrap);
}

const args = (t: PlanTerms) => ({
  p_amount: t.amount,
  p_frequency: t.frequency,
  p_day: t.day,
  p_token: t.tokenId,
});

export async function createPlan(terms: PlanTerms): Promise<void> {
  unwrap(await supabase().rpc('create_invest_plan', args(terms)));
}

export async function updatePlan(id: number, terms: PlanTerms): Promise<void> {
  unwrap(await supabase().rpc('update_invest_plan', { p_plan: id, ...args(terms) }));
}

export async function setPlanPaused(id: number, paused: boolean): Promise<void> {
  unwrap(await supabase().rpc('set_invest_plan_paused', { p_plan: id, p_paused: paused }));
}

export async function deletePlan(id: number): Promise<void> {
  unwrap(await supabase().rpc('delete_invest_plan', { p_plan: id }));
}
