import { useQuery, useTableChanges } from '@repex/shared-ui/platform';
import { loadSocialAccounts, loadSocialAnalysis } from './data';

/**
 * The user's connected accounts and their analysis, followed live: the worker's proof and each
 * read change an account's row, and the analysis with it.
 */
export function useSocial(userId: string) {
  const accounts = useQuery(() => loadSocialAccounts(userId), [userId]);
  const analysis = useQuery(() => loadSocialAnalysis(userId), [userId]);
  useTableChanges('social_accounts', `user_id=eq.${userId}`, () => {
    accounts.reload();
    analysis.reload();
  });
  const reload = () => {
    accounts.reload();
    analysis.reload();
  };
  return { accounts, analysis, reload };
}
