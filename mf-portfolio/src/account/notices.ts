import { refusal, supabase, unwrap } from '@repex/shared-ui/platform';

/** The kinds of notice (notifications.sql), and how the user has asked to be told each. */
export async function loadNoticeChoices() {
  const [kinds, mine] = await Promise.all([
    supabase()
      .from('notification_kinds')
      .select('kind, label, description, default_channel, always_on')
      .order('position'),
    supabase().from('notification_preferences').select('kind, channel'),
  ]);
  const chosen = new Map(unwrap(mine).map((p) => [p.kind, p.channel]));
  return unwrap(kinds).map((k) => ({
    ...k,
    channel: k.always_on ? 'mail' : (chosen.get(k.kind) ?? k.default_channel),
  }));
}
export type NoticeChoice = Awaited<ReturnType<typeof loadNoticeChoices>>[number];

export const setNoticeChoice = async (kind: string, channel: string) =>
  refusal(await supabase().rpc('set_notification_preference', { p_kind: kind, p_channel: channel }));
