import { useMarketEvents, useQuery, type MarketEventKind } from '@repex/shared-ui/platform';
import {
  loadBook,
  loadHalt,
  loadMine,
  loadMyBid,
  loadOffering,
  loadOpenOrders,
  loadPriceHistory,
  loadTape,
  loadToken,
  loadVesting,
} from './data';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Everything the trading screen shows of one token, and what each kind of market event makes it
 * read again: a trade moves the price, the chart, the tape, the book and the user's cash, tokens
 * and orders; a change of the book (an order resting, cancelled or changed, a bid in the token's
 * open offering, the user's own included) moves the book, the offering and perhaps the user's
 * orders and reserved cash; a halt, the token. An offering's close is a trade.
 * The user's own order needs nothing more: the event it makes says what it changed.
 */
export function useTrading(tokenId: string, userId: string | undefined) {
  const valid = UUID.test(tokenId);
  const token = useQuery(async () => (valid ? loadToken(tokenId) : null), [tokenId]);
  const history = useQuery(async () => (valid ? loadPriceHistory(tokenId) : []), [tokenId]);
  const book = useQuery(async () => (valid ? loadBook(tokenId) : []), [tokenId]);
  const tape = useQuery(async () => (valid ? loadTape(tokenId) : []), [tokenId]);
  const mine = useQuery(
    async () => (valid && userId ? loadMine(userId, tokenId) : { cash: 0, held: 0 }),
    [tokenId, userId],
  );
  const orders = useQuery(async () => (valid ? loadOpenOrders(tokenId) : []), [tokenId, userId]);
  // The halt's reason and time are read only while the market says the token is halted.
  const halted = token.data?.halted ?? false;
  const halt = useQuery(async () => (halted ? loadHalt(tokenId) : null), [tokenId, halted]);
  const vesting = useQuery(async () => (valid ? loadVesting(tokenId) : null), [tokenId]);
  // The token's offering, with the user's bid in it: bids move it as a book change does, the close as a trade.
  const offering = useQuery(async () => {
    const o = valid ? await loadOffering(tokenId) : null;
    return o && { ...o, bid: userId ? await loadMyBid(o.id, userId) : null };
  }, [tokenId, userId]);

  // Only an open offering changes: a token without one, or whose offering has closed, reads it once.
  const auction = offering.data?.closed_at === null ? [offering] : [];
  const reads: Record<MarketEventKind, { reload: () => void }[]> = {
    trade: [token, history, tape, book, mine, orders, ...auction],
    book: [book, mine, orders, ...auction],
    // A halt, or an offering opened again (admin_offer_unsold): the token's trading state.
    halt: [token, halt, offering],
  };
  useMarketEvents(valid ? tokenId : null, (kinds) => {
    for (const q of new Set([...kinds].flatMap((kind) => reads[kind] ?? []))) q.reload();
  });
  return { valid, token, history, book, tape, mine, orders, halt, vesting, offering };
}
