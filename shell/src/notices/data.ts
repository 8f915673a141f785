import { supabase, unwrap } from '@repex/shared-ui/platform';

/** The bell's reads and calls: the user's own notices with their words (notifications.sql's my_notifications). */

/** Notices the bell's list holds. */
export const SHOWN = 20;

const COLUMNS = 'id, kind, title, body, link, created_at, read_at';

/** The latest notices, newest first. */
export const latestNotices = async () =>
  unwrap(await supabase().from('my_notifications').select(COLUMNS).order('id', { ascending: false }).limit(SHOWN));
export type Notice = Awaited<ReturnType<typeof latestNotices>>[number];

/** The notices before `beforeId`, newest first: the next page of the list. */
export const noticesBefore = async (beforeId: number) =>
  unwrap(
    await supabase()
      .from('my_notifications')
      .select(COLUMNS)
      .lt('id', beforeId)
      .order('id', { ascending: false })
      .limit(SHOWN),
  );

/** Notices after `afterId`, oldest first: what arrived since the list was read. */
export const noticesAfter = async (afterId: number) =>
  unwrap(await supabase().from('my_notifications').select(COLUMNS).gt('id', afterId).order('id').limit(SHOWN));

export const unreadCount = async () => unwrap(await supabase().rpc('unread_notifications', {}, { get: true }));

/** Marks one notice read, or all (no id). */
export const markRead = async (id?: number) =>
  unwrap(await supabase().rpc('mark_notifications_read', { p_id: id ?? null }));
