import { useEffect, useRef } from 'react';
import { toast, useAccountFeed } from '@repex/shared-ui/platform';
import { alertsFiredAfter, latestAlertFiring } from './data';

/**
 * Tells the signed-in user, on any screen, when one of their price alerts fires: the database
 * fires it in the transaction of the trade that crossed it and tells the user's account topic;
 * this reads the user's own alerts (row-level security) that fired since the last one it saw.
 */
export function AlertNotices({ userId }: { userId: string }) {
  const seen = useRef<string | null>(null);
  const busy = useRef(false);

  useEffect(() => {
    seen.current = null;
    let live = true;
    latestAlertFiring()
      .then((at) => {
        if (live) seen.current = at ?? new Date(0).toISOString();
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [userId]);

  const check = async () => {
    if (seen.current === null || busy.current) return;
    busy.current = true;
    try {
      const fired = await alertsFiredAfter(seen.current);
      if (!fired.length) return;
      seen.current = fired.at(-1)!.fired_at;
      for (const a of fired) toast({ title: 'Price Alert', description: a.message ?? '' });
    } catch {
      // A notice is a courtesy: the next trade tries again from the same point.
    } finally {
      busy.current = false;
    }
  };
  useAccountFeed(
    (notes) => notes.some((n) => n.what === 'alert') && void check(),
    () => void check(),
  );
  return null;
}
