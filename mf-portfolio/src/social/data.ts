import { refusal, supabase, unwrap } from '@repex/shared-ui/platform';

/** The profile's connected accounts and their analysis (supabase/schemas/social.sql), typed by the database. */

export const PLATFORMS = [
  { key: 'x', label: 'X (Twitter)' },
  { key: 'instagram', label: 'Instagram' },
  { key: 'youtube', label: 'YouTube' },
  { key: 'tiktok', label: 'TikTok' },
  { key: 'linkedin', label: 'LinkedIn' },
] as const;
export type PlatformKey = (typeof PLATFORMS)[number]['key'];
export const platformLabel = (key: string) => PLATFORMS.find((p) => p.key === key)?.label ?? key;

/** The user's accounts: connected, waiting for the phrase, being checked, or failed and why. */
export const loadSocialAccounts = async (userId: string) =>
  unwrap(
    await supabase()
      .from('social_accounts')
      .select('platform, handle, status, phrase, message, followers, following, engagement_rate, read_at')
      .eq('user_id', userId),
  );
export type SocialAccount = Awaited<ReturnType<typeof loadSocialAccounts>>[number];

/** The person's analysis (all of it to themselves), or null without a connected account. */
export const loadSocialAnalysis = async (userId: string) =>
  unwrap(await supabase().rpc('social_analysis', { p_user: userId }));

/** Starts connecting a handle: the phrase to put in its bio, or the refusal. */
export async function startConnection(
  platform: string,
  handle: string,
): Promise<{ refused: string } | { phrase: string }> {
  const { data, error } = await supabase().rpc('start_social_connection', { p_platform: platform, p_handle: handle });
  return error ? { refused: error.message } : { phrase: (data as { phrase: string }).phrase };
}
export const checkConnection = async (platform: string) =>
  refusal(await supabase().rpc('check_social_connection', { p_platform: platform }));
export const disconnect = async (platform: string) =>
  refusal(await supabase().rpc('disconnect_social_account', { p_platform: platform }));
export const refreshAccounts = async () => refusal(await supabase().rpc('refresh_social_accounts'));
