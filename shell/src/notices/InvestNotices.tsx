import { toast, useTableChanges } from '@repex/shared-ui/platform';
import { investNotice } from './investNotice';

/**
 * Tells the signed-in user, on any screen, when the scheduler has run one of their Auto-Invest
 * plans: the database announces each run once, with its outcome, to its owner only.
 */
export function InvestNotices({ userId }: { userId: string }) {
  useTableChanges(
    'invest_runs',
    `user_id=eq.${userId}`,
    (_last, burst) => {
      for (const run of burst) toast(investNotice(run));
    },
    300,
  );
  return null;
}
