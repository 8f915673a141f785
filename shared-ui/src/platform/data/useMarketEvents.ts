import { useEffect, useEffectEvent } from 'react';
import { supabase } from '../supabase';

let channelCounter = 0;

/**
 * Calls `onChange` when a row of `table` that the user may read is inserted or updated (row-level
 * security decides what reaches whom), optionally only rows matching `filter` ('column=eq.value').
 * Bursts are coalesced: `onChange` runs `delayMs` after the first change of a burst, with the last
 * row, so a busy table refreshes a screen at most a few times a second, and a table that never
 * rests (a busy market) still refreshes it (a delay that restarted at each change never would).
 */
export function useTableChanges(
  table: string,
  filter: string | undefined,
  onChange: (record: Record<string, unknown>) => void,
  delayMs = 150,
): void {
  const callback = useEffectEvent(onChange);

  useEffect(() => {
    const client = supabase();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let latest: Record<string, unknown> = {};
    const channel = client
      .channel(`${table}-${filter ?? 'all'}-${channelCounter++}`)
      .on('postgres_changes', { event: '*', schema: 'public', table, ...(filter ? { filter } : {}) }, (change) => {
        latest = change.new as Record<string, unknown>;
        timer ??= setTimeout(() => {
          timer = undefined;
          callback(latest);
        }, delayMs);
      })
      .subscribe();
    return () => {
      clearTimeout(timer);
      void client.removeChannel(channel);
    };
  }, [table, filter, delayMs]);
}

/** Calls `onChange` when anyone trades or changes a book: of one token, or of any token when `tokenId` is null. */
export function useMarketEvents(tokenId: string | null, onChange: () => void, delayMs = 150): void {
  useTableChanges('market_events', tokenId ? `token_id=eq.${tokenId}` : undefined, () => onChange(), delayMs);
}
