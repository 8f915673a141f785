import { useEffect, useEffectEvent } from 'react';
import { supabase } from '../supabase';

let channelCounter = 0;

/**
 * Calls `onChange` when a row of `table` that the user may read is inserted or updated (row-level
 * security decides what reaches whom), optionally only rows matching `filter` ('column=eq.value').
 * Bursts are coalesced: `onChange` runs `delayMs` after the first change of a burst, with the last
 * row and every row of the burst, so a busy table refreshes a screen at most a few times a second,
 * and a table that never rests (a busy market) still refreshes it (a delay that restarted at each
 * change never would).
 */
export function useTableChanges(
  table: string,
  filter: string | undefined,
  onChange: (record: Record<string, unknown>, burst: Record<string, unknown>[]) => void,
  delayMs = 150,
): void {
  const callback = useEffectEvent(onChange);

  useEffect(() => {
    const client = supabase();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let burst: Record<string, unknown>[] = [];
    const channel = client
      .channel(`${table}-${filter ?? 'all'}-${channelCounter++}`)
      .on('postgres_changes', { event: '*', schema: 'public', table, ...(filter ? { filter } : {}) }, (change) => {
        burst.push(change.new as Record<string, unknown>);
        timer ??= setTimeout(() => {
          timer = undefined;
          const rows = burst;
          burst = [];
          callback(rows[rows.length - 1]!, rows);
        }, delayMs);
      })
      .subscribe();
    return () => {
      clearTimeout(timer);
      void client.removeChannel(channel);
    };
  }, [table, filter, delayMs]);
}

/** What a market event says changed (public.market_events.kind): the tape, a book, or a token's halt. */
export type MarketEventKind = 'trade' | 'book' | 'halt';

/**
 * Calls `onChange` when anyone trades, changes a book or halts a token: of one token, or of any
 * token when `tokenId` is null, with the kinds of change the burst held, so a screen reads again
 * only what changed.
 */
export function useMarketEvents(
  tokenId: string | null,
  onChange: (kinds: Set<MarketEventKind>) => void,
  delayMs = 150,
): void {
  useTableChanges(
    'market_events',
    tokenId ? `token_id=eq.${tokenId}` : undefined,
    (_last, burst) => onChange(new Set(burst.map((e) => e.kind as MarketEventKind))),
    delayMs,
  );
}
