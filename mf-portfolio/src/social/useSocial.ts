import { useQuery, useTableChanges } from '@repex/shared-ui/platform';
import { loadSocialAccounts, loadSocialAnalysis } from './data';

/**
 * The user's connected accounts and their analysis, followed live: the worker's proof and each
 * read change an account's row, and the analysis with it (and the profile's Social Impact
 * figures, which the database keeps: `onChange`).
 */
export function useSocial(userId: string, onChange?: () => void) {
  const accounts = useQuery(() => loadSocialAccounts(userId), [userId]);
  const analysis = useQuery(() => loadSocialAnalysis(userId), [userId]);
  const reload = () => {
    accounts.reload();
    analysis.reload();
    onChange?.();
  };
  useTableChanges('social_accounts', `user_id=eq.${userId}`, reload);
  return { accounts, analysis, reload };
}
