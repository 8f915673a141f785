import { useCallback, useEffect, useRef, useState } from 'react';
import { toast, useAccountFeed } from '@repex/shared-ui/platform';
import { SHOWN, latestNotices, markRead, noticesAfter, noticesBefore, unreadCount, type Notice } from './data';

/**
 * The signed-in user's notices: the latest, the unread count, and a toast for each that arrives
 * while the app is open. The database tells the user's account topic when a notice is written or
 * read (private.notify), or when their orders traded or cash came (with its fill and fee-share
 * notices); only then does this read, and only what is new.
 */
export function useNotices(userId: string) {
  const [items, setItems] = useState<Notice[]>([]);
  const [unread, setUnread] = useState(0);
  // Whether older notices may lie beyond the list: it held a full page when last read.
  const [older, setOlder] = useState(false);
  const last = useRef<number | null>(null);
  const busy = useRef(false);
  const again = useRef(false);

  const resync = useCallback(
    () =>
      Promise.all([latestNotices(), unreadCount()])
        .then(([latest, count]) => {
          last.current = latest[0]?.id ?? 0;
          setItems(latest);
          setOlder(latest.length === SHOWN);
          setUnread(count);
        })
        .catch(() => undefined),
    [],
  );

  useEffect(() => {
    last.current = null;
    void resync();
  }, [userId, resync]);

  const check = async () => {
    if (last.current === null) return;
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    again.current = false;
    try {
      const [arrived, count] = await Promise.all([noticesAfter(last.current), unreadCount()]);
      setUnread(count);
      if (!arrived.length) return;
      last.current = arrived.at(-1)!.id;
      setItems((now) => [...arrived].reverse().concat(now));
      // One toast shows at a time (spec section 4), and a security notice follows the person's own
      // act here (a key, a bank account, a withdrawal), whose toast it would replace: it is counted
      // and listed, and mailed, but not toasted.
      const told = arrived.filter((n) => n.kind !== 'security');
      if (told.length > 3) toast({ title: `${told.length} New Notices`, description: 'Open the bell to read them.' });
      else for (const n of told) toast({ title: n.title, description: n.body });
    } catch {
      // A notice is kept: the bell shows it at the next read.
    } finally {
      busy.current = false;
      if (again.current) void check();
    }
  };
  useAccountFeed(
    // A fill or a fee share is told as the account's fills and cash: its notice came with them.
    (notes) => notes.some((n) => n.what === 'notice' || n.what === 'fills' || n.what === 'cash') && void check(),
    () => void resync(),
  );

  const read = async (id?: number) => {
    await markRead(id);
    const at = new Date().toISOString();
    setItems((now) => now.map((n) => (id === undefined || n.id === id ? { ...n, read_at: n.read_at ?? at } : n)));
    setUnread((u) => (id === undefined ? 0 : Math.max(0, u - 1)));
  };
  const more = async () => {
    const oldest = items.at(-1)?.id;
    if (oldest === undefined) return;
    const page = await noticesBefore(oldest);
    setItems((now) => now.concat(page.filter((n) => n.id < (now.at(-1)?.id ?? Infinity))));
    setOlder(page.length === SHOWN);
  };
  return { items, unread, older, more, read };
}
export type Notices = ReturnType<typeof useNotices>;
