import { useMemo } from 'react';
import { FirstRead, useQuery } from '@repex/shared-ui/platform';
import {
  loadAuction,
  loadBook,
  loadMine,
  loadMyBid,
  loadOffering,
  loadOpenOrders,
  loadPriceHistory,
  loadTape,
  loadToken,
  loadTradingScreen,
  loadVesting,
} from './data';

/**
 * The trading screen's parts, each its own query: the token, its line, book and tape, the user's
 * cash, tokens and orders here, the founder's vesting, the token's offering with the user's bid,
 * and its volatility auction.
 */
export function useTradingParts(tokenId: string, userId: string | undefined, valid: boolean) {
  // The first read of every part is one request; a part's reload reads it alone.
  const first = useMemo(
    () => new FirstRead(valid ? () => loadTradingScreen(tokenId) : null),
    // A new user (signed in elsewhere) reads their own parts again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [tokenId, userId],
  );
  const token = useQuery(
    async () =>
      valid
        ? first.load(
            'token',
            (s) => s.token,
            () => loadToken(tokenId),
          )
        : null,
    [tokenId],
  );
  const history = useQuery(
    async () =>
      valid
        ? first.load(
            'history',
            (s) => s.history,
            () => loadPriceHistory(tokenId),
          )
        : [],
    [tokenId],
  );
  const book = useQuery(
    async () =>
      valid
        ? first.load(
            'book',
            (s) => s.book,
            () => loadBook(tokenId),
          )
        : [],
    [tokenId],
  );
  const tape = useQuery(
    async () =>
      valid
        ? first.load(
            'tape',
            (s) => s.tape,
            () => loadTape(tokenId),
          )
        : [],
    [tokenId],
  );
  const mine = useQuery(
    async () =>
      valid && userId
        ? first.load(
            'mine',
            (s) => ({ cash: s.cash, held: s.held }),
            () => loadMine(userId, tokenId),
          )
        : { cash: 0, held: 0 },
    [tokenId, userId],
  );
  const orders = useQuery(
    async () =>
      valid
        ? first.load(
            'orders',
            (s) => s.orders,
            () => loadOpenOrders(tokenId),
          )
        : [],
    [tokenId, userId],
  );
  const vesting = useQuery(
    async () =>
      valid
        ? first.load(
            'vesting',
            (s) => s.vesting,
            () => loadVesting(tokenId),
          )
        : null,
    [tokenId],
  );
  // The token's offering, with the user's bid in it: bids move it as a book change does, the close as a trade.
  const offering = useQuery(
    async () =>
      valid
        ? first.load(
            'offering',
            (s) => s.offering,
            async () => {
              const o = await loadOffering(tokenId);
              return o && { ...o, bid: userId ? await loadMyBid(o.id, userId) : null };
            },
          )
        : null,
    [tokenId, userId],
  );

  // The token's volatility auction while one is open: what it would uncross at now.
  const auction = useQuery(
    async () =>
      valid
        ? first.load(
            'auction',
            (s) => s.auction,
            () => loadAuction(tokenId),
          )
        : null,
    [tokenId],
  );

  return { token, history, book, tape, mine, orders, vesting, offering, auction };
}
