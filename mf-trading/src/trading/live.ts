import type { MarketTick, TickTrade } from '@repex/shared-ui/contracts';
import { TAPE_LENGTH, type BookLevel, type Candle, type PricePoint, type TapeTrade } from './data';

const HOUR_MS = 3_600_000;

/** The batch's messages about one token, oldest first. */
export const ticksOf = (ticks: MarketTick[], tokenId: string) => ticks.filter((t) => t.token_id === tokenId);

/** The book with each level the messages touched set to what it holds now (a level at 0 is gone). */
export function applyLevels(book: BookLevel[], ticks: MarketTick[]): BookLevel[] {
  const touched = ticks.flatMap((t) => t.levels);
  if (!touched.length) return book;
  const levels = new Map(book.map((l) => [`${l.side}:${l.price}`, l]));
  for (const l of touched) {
    const key = `${l.side}:${l.price}`;
    if (l.amount > 0) levels.set(key, { ...levels.get(key), side: l.side, price: l.price, amount: l.amount });
    else levels.delete(key);
  }
  return [...levels.values()];
}

/** The open volatility auction with the indicative figures of the latest message that carries them. */
export function patchAuction<A extends object>(auction: A | null, ticks: MarketTick[]): A | null {
  const latest = ticks.filter((t) => t.auction).at(-1)?.auction;
  return auction && latest ? { ...auction, ...latest } : auction;
}

/** The tape with the messages' trades on top, newest first, as long as the screen shows it. */
export function prependTrades(tape: TapeTrade[], ticks: MarketTick[]): TapeTrade[] {
  const fresh = ticks.flatMap((t) => t.trades).sort(newestFirst);
  if (!fresh.length) return tape;
  const seen = new Set<number>();
  return [...fresh.map(asTape), ...tape].filter((t) => !seen.has(t.id) && seen.add(t.id)).slice(0, TAPE_LENGTH);
}

const newestFirst = (a: TickTrade, b: TickTrade) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id;
const asTape = (t: TickTrade): TapeTrade => ({
  id: t.id,
  price: t.price,
  amount: t.amount,
  type: t.type,
  created_at: t.created_at,
});

/** The messages' trades, oldest first. */
const tradesOf = (ticks: MarketTick[]) => ticks.flatMap((t) => t.trades).sort((a, b) => -newestFirst(a, b));

/**
 * The 24-hour line (public.price_history: each hour's close) with the messages' trades: the last
 * trade closes its hour, a later hour starts a new point and the oldest drops off.
 */
export function patchHistory(points: PricePoint[], ticks: MarketTick[]): PricePoint[] {
  let out = points;
  for (const trade of tradesOf(ticks)) {
    const hour = Math.floor(Date.parse(trade.created_at) / HOUR_MS) * HOUR_MS;
    const last = out.at(-1);
    const lastHour = last ? Date.parse(last.bucket) : -Infinity;
    if (hour < lastHour) continue;
    out =
      hour === lastHour
        ? [...out.slice(0, -1), { ...last!, price: trade.price }]
        : [...out.slice(out.length >= 24 ? 1 : 0), { bucket: new Date(hour).toISOString(), price: trade.price }];
  }
  return out;
}

/** The chart's candles of `seconds` with the messages' trades folded into the newest, or starting a new one. */
export function patchCandles(candles: Candle[], ticks: MarketTick[], seconds: number): Candle[] {
  let out = candles;
  for (const trade of tradesOf(ticks)) {
    const bucket = Math.floor(Date.parse(trade.created_at) / (seconds * 1000)) * seconds * 1000;
    const last = out.at(-1);
    const lastBucket = last ? Date.parse(last.bucket) : -Infinity;
    if (bucket < lastBucket) continue;
    out =
      bucket === lastBucket
        ? [
            ...out.slice(0, -1),
            {
              ...last!,
              high: Math.max(last!.high, trade.price),
              low: Math.min(last!.low, trade.price),
              close: trade.price,
              volume: last!.volume + trade.amount,
            },
          ]
        : [
            ...out,
            {
              bucket: new Date(bucket).toISOString(),
              open: trade.price,
              high: trade.price,
              low: trade.price,
              close: trade.price,
              volume: trade.amount,
            },
          ];
  }
  return out;
}
