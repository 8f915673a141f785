import { useMemo } from 'react';
import { withTicks } from '@repex/shared-ui/contracts';
import { useAccountFeed, useMarketFeed, useQuery, useSoon } from '@repex/shared-ui/platform';
import { applyLevels, patchAuction, patchHistory, prependTrades, ticksOf } from './live';
import { ownLevels } from './book/ownLevels';
import { ownLines } from './chart/ownLines';
import { loadHalt } from './data';
import { useTradingParts } from './useTradingParts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Everything the trading screen shows of one token, kept live without reading it again: the
 * market's messages carry the token's figures, its trades (the tape, the line) and the levels of its
 * book they touched. Reads come for what they cannot carry, at most once a second: the user's cash,
 * tokens and orders when their account's notes say they changed; the offering when it changes; a
 * halt's reason; a volatility auction when it starts or ends. After a resync, everything is read again.
 */
export function useTrading(tokenId: string, userId: string | undefined) {
  const valid = UUID.test(tokenId);
  const { token, history, book, tape, mine, orders, vesting, offering, auction } = useTradingParts(
    tokenId,
    userId,
    valid,
  );
  // The halt's reason and time are read only while the market says the token is halted.
  const halted = token.data?.halted ?? false;
  const halt = useQuery(async () => (halted ? loadHalt(tokenId) : null), [tokenId, halted]);

  const haltSoon = useSoon(halt.reload);
  // An offering's bids move its demand; its close trades at one price for all: read what it changed.
  const offeringSoon = useSoon(() => {
    for (const q of [offering, book, tape, history]) q.reload();
  });
  // A volatility auction starts or ends: the token's phase and the auction are read again (in its
  // call, each message carries the indicative figures).
  const phaseSoon = useSoon(() => {
    token.reload();
    auction.reload();
  });
  const own = useSoon(
    () => {
      mine.reload();
      orders.reload();
    },
    500,
    200,
  );
  useMarketFeed(
    (ticks) => {
      const about = valid ? ticksOf(ticks, tokenId) : [];
      if (!about.length) return;
      token.patch((t) => t && withTicks([t], about)[0]!);
      book.patch((b) => applyLevels(b, about));
      tape.patch((t) => prependTrades(t, about));
      history.patch((h) => patchHistory(h, about));
      if (about.some((t) => t.kind === 'halt')) haltSoon();
      if (about.some((t) => t.kind === 'halt' || t.kind === 'offering')) offeringSoon();
      auction.patch((a) => patchAuction(a, about));
      if (about.some((t) => t.kind === 'auction')) phaseSoon();
    },
    () => {
      for (const q of [token, history, tape, book, mine, orders, halt, offering, auction]) q.reload();
    },
  );
  useAccountFeed(own);
  // The user's resting orders per level of the book, which the book marks as theirs.
  const ownBook = useMemo(() => ownLevels(orders.data ?? []), [orders.data]);
  // And on the chart, with the stops waiting at their triggers.
  const ownChart = useMemo(() => ownLines(orders.data ?? []), [orders.data]);
  return {
    valid,
    token,
    history,
    book,
    tape,
    mine,
    orders,
    ownBook,
    ownChart,
    halt,
    vesting,
    offering,
    volatility: auction,
  };
}
