import { lastTickOf, withTicks, type MarketTick, type TickedRow } from '@repex/shared-ui/contracts';

const cents = (n: number) => Math.round(n * 100) / 100;

/**
 * A page of the market as the market's messages say it is now: each row's figures, and the page
 * in its sort's order again (ties by id, as the database orders them). Which tokens the page holds
 * is the database's to say: a token that would now sort onto it from another page comes with the
 * next read (a change of page, sort, filter or search, or a resync).
 */
export function patchPage<R extends TickedRow & { reputation_score: number }, P extends { rows: R[] }>(
  page: P,
  ticks: MarketTick[],
  sort: string,
): P {
  const rows = withTicks(page.rows, ticks);
  if (rows === page.rows) return page;
  const [column, direction] = sort.split('.') as [keyof R & string, string];
  const sign = direction === 'asc' ? 1 : -1;
  const sorted = [...rows].sort(
    (a, b) => sign * (Number(a[column]) - Number(b[column])) || sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return { ...page, rows: sorted };
}

/** The four figures above the market as the batch moved them: each token's market cap and 24h volume change. */
export function patchSummary<S extends { total_market_cap: number; volume_24h: number }>(
  summary: S,
  ticks: MarketTick[],
): S {
  const cap = ticks.reduce((sum, t) => sum + t.market_cap_change, 0);
  const volume = ticks.reduce((sum, t) => sum + t.volume_change, 0);
  if (cap === 0 && volume === 0) return summary;
  return {
    ...summary,
    total_market_cap: cents(summary.total_market_cap + cap),
    volume_24h: cents(summary.volume_24h + volume),
  };
}

/** The index's basket with its members' last prices as the batch says they are. */
export function patchBasket<M extends { token_id: string; price: number }>(members: M[], ticks: MarketTick[]): M[] {
  const last = lastTickOf(ticks);
  if (!members.some((m) => last.has(m.token_id))) return members;
  return members.map((m) => {
    const t = last.get(m.token_id);
    return t ? { ...m, price: t.price } : m;
  });
}
