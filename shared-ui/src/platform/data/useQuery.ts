import { useCallback, useEffect, useEffectEvent, useState } from 'react';

export interface QueryState<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  /** Loads again (Retry buttons, live updates). Keeps showing the last data meanwhile. */
  reload: () => void;
  /** Changes the data shown, as a live message says it changed, without reading it again. */
  patch: (change: (data: T) => T) => void;
}

/**
 * Runs `load` when `deps` change and tracks loading and errors. A result that arrives after
 * newer deps is dropped, so fast typing in a search box never shows stale rows.
 */
export function useQuery<T>(load: () => Promise<T>, deps: readonly unknown[]): QueryState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: Error | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const loader = useEffectEvent(load);

  useEffect(() => {
    let live = true;
    // A new request starts: the last data stays shown, marked as loading again.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setState((s) => ({ ...s, loading: true }));
    loader()
      .then((data) => live && setState({ data, error: undefined, loading: false }))
      .catch(
        (error: unknown) =>
          live &&
          setState((s) => ({
            data: s.data,
            loading: false,
            error: error instanceof Error ? error : new Error(String(error)),
          })),
      );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const patch = useCallback(
    (change: (data: T) => T) => setState((s) => (s.data === undefined ? s : { ...s, data: change(s.data) })),
    [],
  );
  return { ...state, reload, patch };
}

/** Turns a supabase-js result into its data, or throws its error with the server's message. */
export function unwrap<R extends { data: unknown; error: { message: string } | null }>(
  result: R,
): Extract<R, { error: null }>['data'] {
  if (result.error) throw new Error(result.error.message);
  return result.data;
}

/** A supabase-js result that returns nothing: null when it succeeded, else the server's words for the refusal. */
export const refusal = ({ error }: { error: { message: string } | null }): string | null => error?.message ?? null;
