import type { SocialAccount } from './data';

/**
 * Social Impact's three figures over the connected accounts: followers and following summed, and
 * the engagement rate weighted by each account's followers (an account with a larger audience says
 * more about how the person's posts land).
 */
export function socialFigures(accounts: SocialAccount[]) {
  const connected = accounts.filter((a) => a.status === 'connected' && a.followers !== null);
  const followers = connected.reduce((n, a) => n + (a.followers ?? 0), 0);
  const following = connected.reduce((n, a) => n + (a.following ?? 0), 0);
  const engagement =
    followers > 0 ? connected.reduce((n, a) => n + (a.followers ?? 0) * (a.engagement_rate ?? 0), 0) / followers : 0;
  return { connected: connected.length, followers, following, engagement };
}
