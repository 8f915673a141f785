import { useState } from 'react';
import { FirstRead, useQuery } from '@repex/shared-ui/platform';
import { loadCategories, loadMarketScreen, loadOpenOfferings, loadSummary, loadTokens } from './data';
import type { MarketQuery } from './query';

/**
 * The market screen's reads: the figures around the list come in one request first (`first`, which
 * the index card shares), and each reloads alone after; the list's page follows the query (`key`,
 * its URL form).
 */
export function useMarketReads(query: MarketQuery, key: string) {
  const [first] = useState(() => new FirstRead(loadMarketScreen));
  const summary = useQuery(() => first.load('summary', (s) => s.summary, loadSummary), []);
  const categories = useQuery(() => first.load('categories', (s) => s.categories, loadCategories), []);
  const tokens = useQuery(() => loadTokens(query), [key]);
  const offerings = useQuery(() => first.load('offerings', (s) => s.offerings, loadOpenOfferings), []);
  return { first, summary, categories, tokens, offerings };
}
