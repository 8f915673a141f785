import { useEffect } from 'react';
import { useMarketFeed, useSoon, type QueryState } from '@repex/shared-ui/platform';
import type { loadOpenOfferings, loadSummary, loadTokens } from './data';
import { patchPage, patchSummary } from './live';

/** How often the figures no message carries (how many people trade) are read again: every few minutes. */
const SUMMARY_EVERY_MS = 5 * 60_000;

/**
 * Keeps the market screen live at the cost of no read per trade: each message patches the page's
 * rows (re-sorted) and the summary's market cap and volume. Reads come only for what a message
 * cannot carry: a newly listed token (the page, the summary, the categories), an offering's
 * change (the auctions), a volatility auction on a token of the page, the traders count every few minutes, and everything after a resync;
 * each at most once a second, at a random moment, so a thousand open screens do not read at once.
 */
export function useLiveMarket(
  q: {
    tokens: QueryState<Awaited<ReturnType<typeof loadTokens>>>;
    summary: QueryState<Awaited<ReturnType<typeof loadSummary>>>;
    offerings: QueryState<Awaited<ReturnType<typeof loadOpenOfferings>>>;
    categories: QueryState<string[]>;
  },
  sort: string,
): void {
  const listed = useSoon(() => {
    q.tokens.reload();
    q.summary.reload();
    q.categories.reload();
  });
  const offered = useSoon(q.offerings.reload);
  // A volatility auction started or ended on a token of the page: its row's phase (no message carries it).
  const paused = useSoon(q.tokens.reload);
  useMarketFeed(
    (ticks) => {
      q.tokens.patch((page) => patchPage(page, ticks, sort));
      q.summary.patch((s) => patchSummary(s, ticks));
      if (ticks.some((t) => t.kind === 'listed')) listed();
      if (ticks.some((t) => t.kind === 'offering' || t.kind === 'listed')) offered();
      const shown = q.tokens.data?.rows;
      if (ticks.some((t) => t.kind === 'auction' && shown?.some((r) => r.id === t.token_id))) paused();
    },
    () => {
      q.tokens.reload();
      q.summary.reload();
      q.offerings.reload();
    },
  );
  const { reload } = q.summary;
  useEffect(() => {
    const timer = setInterval(reload, SUMMARY_EVERY_MS * (0.75 + Math.random() / 2));
    return () => clearInterval(timer);
  }, [reload]);
}
