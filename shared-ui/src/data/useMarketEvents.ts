import { useEffect, useRef } from 'react';
import { supabase } from '../supabase';

let channelCounter = 0;

/**
 * Calls `onChange` when anyone trades or changes a book: of one token, or of any token when
 * `tokenId` is null. Bursts are coalesced (`delayMs`), so a busy market refreshes a screen at
 * most a few times a second.
 */
export function useMarketEvents(tokenId: string | null, onChange: () => void, delayMs = 150): void {
  const callback = useRef(onChange);
  callback.current = onChange;

  useEffect(() => {
    const client = supabase();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const channel = client
      .channel(`market-${tokenId ?? 'all'}-${channelCounter++}`)
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'market_events', ...(tokenId ? { filter: `token_id=eq.${tokenId}` } : {}) },
        () => {
          clearTimeout(timer);
          timer = setTimeout(() => callback.current(), delayMs);
        },
      )
      .subscribe();
    return () => {
      clearTimeout(timer);
      void client.removeChannel(channel);
    };
  }, [tokenId, delayMs]);
}
