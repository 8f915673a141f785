import { useEffect, useRef, useState } from 'react';
import type { OrderQuote } from '@repex/shared-ui/contracts';
import { quoteOrder, type QuoteRequest } from './data';

/** How long typing pauses before the database is asked: a quote per pause, not per keystroke. */
const PAUSE_MS = 200;

/**
 * The database's quote of the order being composed (quote_order): asked after a pause in typing,
 * and again when the book it walked or the exchange's settings change (`book` and `settings` are
 * their current values, a new object per change). Nothing is asked while the order is incomplete (`request` null), so a panel that is only
 * watched costs no reads. An answer for an order no longer on screen is dropped; until the first
 * answer for the current order, `quote` is null and `pending` true.
 */
export function useQuote(request: QuoteRequest | null, book: unknown, settings: unknown) {
  const key = request ? JSON.stringify(request) : null;
  const [state, setState] = useState<{ key: string | null; quote: OrderQuote | null; error: string | null }>({
    key: null,
    quote: null,
    error: null,
  });
  const asked = useRef(0);
  useEffect(() => {
    if (!key) return;
    const ask = ++asked.current;
    const timer = setTimeout(() => {
      quoteOrder(JSON.parse(key) as QuoteRequest).then(
        (quote) => ask === asked.current && setState({ key, quote, error: null }),
        (err: unknown) =>
          ask === asked.current &&
          setState({ key, quote: null, error: (err as { message?: string })?.message ?? 'The estimate failed.' }),
      );
    }, PAUSE_MS);
    return () => clearTimeout(timer);
  }, [key, book, settings]);
  const current = key !== null && state.key === key;
  return {
    quote: current ? state.quote : null,
    error: current ? state.error : null,
    pending: key !== null && !current,
  };
}
