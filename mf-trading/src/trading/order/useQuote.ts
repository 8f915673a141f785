import { usePausedQuery } from '@repex/shared-ui/platform';
import { quoteOrder, type QuoteRequest } from '../data';

/** How long typing pauses before the database is asked: a quote per pause, not per keystroke. */
const PAUSE_MS = 200;

/**
 * The database's quote of the order being composed (quote_order): asked after a pause in typing,
 * and again when the book it walked or the exchange's settings change (`book` and `settings` are
 * their current values, a new object per change). Nothing is asked while the order is incomplete
 * (`request` null), so a panel that is only watched costs no reads.
 */
export function useQuote(request: QuoteRequest | null, book: unknown, settings: unknown) {
  const { data, error, pending } = usePausedQuery(
    request && JSON.stringify(request),
    () => quoteOrder(request!),
    PAUSE_MS,
    [book, settings],
  );
  return { quote: data ?? null, error: error ?? null, pending };
}
