import { useEffect, useEffectEvent, useState } from 'react';

/**
 * A read asked as the user types: `load` runs once typing pauses for `pauseMs`, for the request
 * named by `key` (null: nothing to ask), and again when anything in `also` changes (a live book,
 * say). An answer for a key no longer current is dropped. Until the first answer for the current
 * key, `data` is undefined and `pending` true; later answers for the same key replace it in place.
 */
export function usePausedQuery<T>(key: string | null, load: () => Promise<T>, pauseMs: number, also: unknown[] = []) {
  const [state, setState] = useState<{ key: string | null; data?: T; error?: string }>({ key: null });
  const loader = useEffectEvent(load);
  useEffect(() => {
    if (!key) return;
    let live = true;
    const timer = setTimeout(() => {
      loader().then(
        (data) => live && setState({ key, data }),
        (err: unknown) =>
          live && setState({ key, error: (err as { message?: string })?.message ?? 'The read failed.' }),
      );
    }, pauseMs);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // The key names the request; `also` is what else it reads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, pauseMs, ...also]);
  const current = key !== null && state.key === key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    pending: key !== null && !current,
  };
}
