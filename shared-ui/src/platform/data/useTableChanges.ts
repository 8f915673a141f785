import { useEffect, useEffectEvent } from 'react';
import { supabase } from '../supabase';

let channelCounter = 0;

/**
 * Calls `onChange` when a row of `table` that the user may read is inserted or updated (row-level
 * security decides what reaches whom), optionally only rows matching `filter` ('column=eq.value'):
 * for the tables that change now and then (settings, payments, applications). The market's busy
 * changes come as broadcasts instead (feeds.ts).
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
