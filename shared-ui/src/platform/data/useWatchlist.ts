import { useCallback, useEffect, useState } from 'react';
import { supabase } from '../supabase';
import { useAppStore } from '../store';
import { toast } from '../toast/toastStore';

/**
 * The signed-in user's watchlist (row-level security: their own rows only) and a toggle that adds
 * or removes a token, shown at once and undone if the server refuses.
 */
export function useWatchlist(): {
  watched: ReadonlySet<string>;
  toggle: (tokenId: string, name: string) => Promise<void>;
  /** Changes after the server has stored a change: reload lists that show the watchlist on it. */
  saved: number;
} {
  const userId = useAppStore((s) => s.session?.user.id);
  const [watched, setWatched] = useState<ReadonlySet<string>>(new Set());
  const [saved, setSaved] = useState(0);

  useEffect(() => {
    if (!userId) return;
    let live = true;
    void supabase()
      .from('watchlist')
      .select('token_id')
      .then(({ data }) => {
        if (!live) return;
        setWatched(new Set((data ?? []).map((r: { token_id: string }) => r.token_id)));
      });
    return () => {
      live = false;
    };
  }, [userId]);

  const toggle = useCallback(
    async (tokenId: string, name: string) => {
      if (!userId) return;
      const adding = !watched.has(tokenId);
      const flip = (add: boolean) =>
        setWatched((w) => {
          const next = new Set(w);
          if (add) next.add(tokenId);
          else next.delete(tokenId);
          return next;
        });
      flip(adding);
      const table = supabase().from('watchlist');
      const { error } = adding
        ? await table.insert({ user_id: userId, token_id: tokenId })
        : await table.delete().eq('user_id', userId).eq('token_id', tokenId);
      if (error && !(adding && error.code === '23505')) {
        flip(!adding);
        toast({ title: 'Watchlist Not Updated', description: error.message, variant: 'destructive' });
        return;
      }
      setSaved((n) => n + 1);
      toast({
        title: adding ? 'Added to Watchlist' : 'Removed from Watchlist',
        description: `${name} is ${adding ? 'now' : 'no longer'} on your watchlist.`,
      });
    },
    [userId, watched],
  );

  return { watched, toggle, saved };
}
