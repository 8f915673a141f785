import { useAppStore, useQuery, useTableChanges } from '@repex/shared-ui/platform';
import { createPlan, deletePlan, loadPlans, loadRuns, setPlanPaused, updatePlan, type PlanTerms } from './data';

/**
 * The Auto-Invest screen's state: the user's plans and their runs, read again when the scheduler
 * records a run (live, through row-level security) and after each change the user makes.
 */
export function useAutoInvest() {
  const userId = useAppStore((s) => s.session?.user.id);
  const plans = useQuery(loadPlans, [userId]);
  const runs = useQuery(() => loadRuns(), [userId]);
  const reload = () => {
    plans.reload();
    runs.reload();
  };
  useTableChanges('invest_runs', userId ? `user_id=eq.${userId}` : undefined, reload);
  const after =
    <A extends unknown[]>(work: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      await work(...args);
      reload();
    };
  return {
    plans,
    runs,
    create: after((terms: PlanTerms) => createPlan(terms)),
    update: after((id: number, terms: PlanTerms) => updatePlan(id, terms)),
    setPaused: after((id: number, paused: boolean) => setPlanPaused(id, paused)),
    remove: after((id: number) => deletePlan(id)),
  };
}
