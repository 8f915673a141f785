import type { OrderTerm, TimeInForce } from '@repex/shared-ui/contracts';
import type { BookLevel, QuoteRequest } from '../data';
import type { Side } from './orderMath';
import type { OrderKind } from './orderPlan';
import { bandNote, limitWarning, marketError, marketNote } from './quoteWords';
import { useQuote } from './useQuote';

/** An order as the panel holds it, complete enough to be quoted or not. */
export interface OrderDraft {
  tokenId: string;
  /** The token's name, as the notes say it. */
  tokenName: string;
  side: Side;
  type: OrderKind;
  /** Whole tokens typed (0: none yet), or a sum to spend on a market buy. */
  tokens: number;
  spend?: number;
  /** A valid limit price: a limit order's, or a stop-limit's. */
  limit?: number;
  tif: TimeInForce;
  /** A good-til-date order's valid expiry. */
  expiresAt?: Date;
  postOnly: boolean;
  /** A stop's valid trigger, what it becomes, and a sell stop's valid take-profit. */
  stop?: { price: number; type: 'market' | 'limit'; takeProfit?: number };
  /** Something typed is wrong or missing: nothing is asked until it is put right. */
  invalid: boolean;
}

/** What the database is asked of a draft, or null while it is incomplete. */
function requestFor(o: OrderDraft): QuoteRequest | null {
  if (o.invalid) return null;
  const lifetime = { tif: o.tif, expiresAt: o.expiresAt?.toISOString() };
  if (o.type === 'stop') {
    // A stop's terms are checked as soon as its trigger is typed, before its amount.
    if (!o.stop || (o.stop.type === 'limit' && o.limit === undefined)) return null;
    return {
      tokenId: o.tokenId,
      side: o.side,
      type: o.stop.type,
      amount: o.tokens > 0 ? o.tokens : undefined,
      price: o.stop.type === 'limit' ? o.limit : undefined,
      stopPrice: o.stop.price,
      takeProfit: o.stop.takeProfit,
      ...lifetime,
    };
  }
  if (o.spend !== undefined)
    return o.spend > 0 ? { tokenId: o.tokenId, side: 'buy', type: 'market', maxTotal: o.spend } : null;
  if (o.tokens <= 0 || (o.type === 'limit' && o.limit === undefined)) return null;
  return {
    tokenId: o.tokenId,
    side: o.side,
    type: o.type,
    amount: o.tokens,
    price: o.limit,
    ...(o.type === 'limit' ? lifetime : {}),
    postOnly: o.type === 'limit' && o.postOnly ? true : undefined,
  };
}

/**
 * The estimate of an order, from the database's quote (quote_order): for an order now, its walk of
 * the book; for a stop, its figures at the trigger and the cash it holds. With it, what holds the
 * button (an error in the engine's words, or a term it refuses, said beside that term's field) or
 * explains the order (a note), and a warning for a limit far from the market.
 */
export function useOrderEstimate(o: OrderDraft, book: BookLevel[] | undefined, settings: unknown) {
  const spending = o.spend !== undefined;
  const { quote, pending, error } = useQuote(requestFor(o), book, settings);
  const figures =
    quote &&
    (quote.at_trigger ?? {
      price: o.type === 'limit' ? o.limit! : quote.average_price,
      ...totals(quote.value + quote.rest_value, quote.fee + quote.rest_fee),
    });
  const refused = quote?.term_refusal ?? null;
  const problem =
    error ??
    (quote &&
      (quote.blocked ??
        (refused?.term === 'terms' ? refused.message : null) ??
        quote.refusal ??
        (o.type === 'market' ? marketError(o.side, quote, spending) : null)));
  return {
    quote,
    pending,
    figures,
    problem,
    /** What the engine refuses of a term, by the term: said beside its field. */
    termError: (term: Exclude<OrderTerm, 'terms'>) => (refused?.term === term ? refused.message : null),
    note:
      quote &&
      (bandNote(quote, o.tokenName, o.type === 'limit' && (o.tif === 'gtc' || o.tif === 'gtd')) ??
        (o.type === 'market' && !spending ? marketNote(o.side, quote) : null)),
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
