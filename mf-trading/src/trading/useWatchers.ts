import { useEffect, useState } from 'react';
import { supabase, useAppStore } from '@repex/shared-ui/platform';
import { countWatchers } from './watcherCount';

/**
 * How many signed-in people have this token's trading page open right now, by Realtime presence
 * on the private topic `watchers:<token>`: each viewer tracks under their user id, so two tabs of
 * one person count once.
 */
export function useWatchers(tokenId: string | null): number | undefined {
  const userId = useAppStore((s) => s.session?.user.id);
  const [count, setCount] = useState<number>();
  useEffect(() => {
    if (!tokenId || !userId) return;
    const client = supabase();
    const channel = client.channel(`watchers:${tokenId}`, { config: { private: true, presence: { key: userId } } });
    channel
      .on('presence', { event: 'sync' }, () => setCount(countWatchers(channel.presenceState())))
      .subscribe((status) => {
        if (status === 'SUBSCRIBED') void channel.track({ since: new Date().toISOString() });
      });
    return () => {
      void client.removeChannel(channel);
    };
  }, [tokenId, userId]);
  return count;
}
