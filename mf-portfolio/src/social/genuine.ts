import type { SocialAnalysis } from '@repex/shared-ui/contracts';
import { formatInteger } from '@repex/shared-ui/ui';

/**
 * What a follower count is worth by the social analysis's authenticity (0-100): the followers
 * counted at that share, said beside the headline so a bought audience is never shown as real.
 * Null when there is no analysis, or when nothing in it doubts the audience.
 */
export function genuineFollowers(followers: number, analysis: SocialAnalysis | null | undefined): string | null {
  const authenticity = analysis?.components.authenticity.value;
  if (authenticity === undefined || authenticity >= 100 || followers <= 0) return null;
  const genuine = Math.round((followers * authenticity) / 100);
  return `About ${formatInteger(genuine)} count as genuine (authenticity ${Number(authenticity.toFixed(1))}/100)`;
}
