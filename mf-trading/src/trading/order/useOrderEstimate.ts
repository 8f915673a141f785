import type { BookLevel, QuoteRequest } from '../data';
import type { Side } from './orderMath';
import type { OrderKind } from './orderPlan';
import { limitWarning, marketError, marketNote } from './quoteWords';
import { useQuote } from './useQuote';
import type { TimeInForce } from '@repex/shared-ui/contracts';

/** An order now as the panel holds it, complete enough to be quoted or not. */
export interface OrderNow {
  tokenId: string;
  side: Side;
  type: OrderKind;
  /** Whole tokens typed (0: none yet), or a sum to spend on a market buy. */
  tokens: number;
  spend?: number;
  /** A limit order's valid price. */
  limit?: number;
  tif: TimeInForce;
  postOnly: boolean;
  /** Something typed is wrong: nothing is asked until it is put right. */
  invalid: boolean;
}

/**
 * The estimate of an order now (at market or at a limit), from the database's walk of the book
 * (quote_order): its figures, what holds the button (an error in the engine's words) or explains
 * the order (a note), and a warning for a limit far from the market. A stop has none: it trades
 * later, on a book not yet known.
 */
export function useOrderEstimate(o: OrderNow, book: BookLevel[] | undefined, settings: unknown) {
  const spending = o.spend !== undefined;
  const request: QuoteRequest | null =
    o.type === 'stop' || o.invalid || (o.type === 'limit' && o.limit === undefined)
      ? null
      : spending
        ? o.spend! > 0
          ? { tokenId: o.tokenId, side: 'buy', type: 'market', maxTotal: o.spend }
          : null
        : o.tokens > 0
          ? {
              tokenId: o.tokenId,
              side: o.side,
              type: o.type,
              amount: o.tokens,
              price: o.limit,
              tif: o.type === 'limit' ? o.tif : undefined,
              postOnly: o.type === 'limit' && o.postOnly ? true : undefined,
            }
          : null;
  const { quote, pending, error } = useQuote(request, book, settings);
  const figures = quote && {
    price: o.type === 'limit' ? o.limit! : quote.average_price,
    ...totals(quote.value + quote.rest_value, quote.fee + quote.rest_fee),
  };
  const problem =
    error ??
    (quote && (quote.blocked ?? quote.refusal ?? (o.type === 'market' ? marketError(o.side, quote, spending) : null)));
  return {
    quote,
    pending,
    figures,
    problem,
    note: quote && o.type === 'market' && !spending ? marketNote(o.side, quote) : null,
    warning: quote && o.type === 'limit' && o.limit !== undefined ? limitWarning(o.side, o.limit, quote) : null,
  };
}

/** An order's value and fee, and what they come to for each side. */
const totals = (value: number, fee: number) => ({
  value,
  fee,
  total: Math.round((value + fee) * 100) / 100,
  proceeds: Math.round((value - fee) * 100) / 100,
});
