/** The user's own open amount at each level of the book, keyed by `ownKey`. */
export type OwnLevels = Map<string, number>;
export const ownKey = (side: string, price: number) => `${side}:${price.toFixed(2)}`;

/** The user's resting limit orders, summed per level: what the book marks as theirs. */
export function ownLevels(
  orders: { side: string; price: number | null; amount: number; filled: number; status: string }[],
) {
  const mine: OwnLevels = new Map();
  for (const o of orders) {
    if (o.status !== 'open' || o.price === null) continue;
    const k = ownKey(o.side, o.price);
    mine.set(k, (mine.get(k) ?? 0) + o.amount - o.filled);
  }
  return mine;
}
