/** The planted manipulation patterns of the labelled suite (suite.ts), each as its culprits would act. */
import { must, order, type Account, type Context } from './world';

export const PATTERNS = [
  'wash_trading',
  'ring',
  'spoofing',
  'cancel_ratio',
  'concentration',
  'new_account',
  'layering',
  'linked_accounts',
  'pump_and_dump',
  'marking_close',
  'trading_ahead',
] as const;
export type Pattern = (typeof PATTERNS)[number];
/** Places and cancels `n` bids of `amount` at `price`, one at a time. */
async function placeAndCancel(a: Account, t: string, n: number, amount: number, price: number) {
  for (let i = 0; i < n; i++) {
    const placed = await must(order(a.client, t, 'buy', 'limit', amount, price));
    await must(a.client.rpc('cancel_order', { p_order: (placed as { order_id: number }).order_id }));
  }
}

/** Each pattern once, as its culprits would: returns who they are. */
export const PLANT: Record<Pattern, (c: Context, busy: string) => Promise<string[]>> = {
  // Two accounts trade a token of their own back and forth, ending where they began.
  wash_trading: async (c) => {
    const t = await c.token();
    const [a, b] = [await c.account(3000), await c.account(3000)];
    await c.give(t, a, 50);
    await c.give(t, b, 50);
    for (let i = 0; i < 3; i++) {
      await must(order(a.client, t, 'sell', 'limit', 10, 10.01));
      await must(order(b.client, t, 'buy', 'limit', 10, 10.01));
      await must(order(b.client, t, 'sell', 'limit', 10, 10.02));
      await must(order(a.client, t, 'buy', 'limit', 10, 10.02));
    }
    return [a.id, b.id];
  },
  // The same ten tokens around four accounts and back to the first.
  ring: async (c) => {
    const t = await c.token();
    const ring = [await c.account(3000), await c.account(3000), await c.account(3000), await c.account(3000)];
    await c.give(t, ring[0]!, 10);
    for (let i = 0; i < ring.length; i++) {
      await must(order(ring[i]!.client, t, 'sell', 'limit', 10, 10));
      await must(order(ring[(i + 1) % ring.length]!.client, t, 'buy', 'limit', 10, 10));
    }
    return ring.map((a) => a.id);
  },
  // Large bids far from the price on a busy token, each cancelled within seconds.
  spoofing: async (c, busy) => {
    const a = await c.account(20_000);
    await placeAndCancel(a, busy, 4, 200, 9);
    return [a.id];
  },
  // Many small orders, all cancelled.
  cancel_ratio: async (c, busy) => {
    const a = await c.account(2000);
    await placeAndCancel(a, busy, 25, 1, 5);
    return [a.id];
  },
  // One account buys most of a quiet token's volume.
  concentration: async (c) => {
    const t = await c.token();
    const [seller, buyer] = [await c.account(0), await c.account(5000)];
    await c.give(t, seller, 500);
    await must(order(seller.client, t, 'sell', 'limit', 300, 10));
    for (let i = 0; i < 6; i++) await must(order(buyer.client, t, 'buy', 'market', 20));
    return [buyer.id];
  },
  // Bids at three levels make demand look deeper; the account sells into a buyer meanwhile, then
  // takes the bids away.
  layering: async (c) => {
    const t = await c.token();
    const [a, buyer] = [await c.account(3000), await c.account(3000)];
    await c.give(t, a, 50);
    await must(order(buyer.client, t, 'buy', 'limit', 20, 10.4));
    const layers = [];
    for (const price of [9.9, 9.85, 9.8])
      layers.push(((await must(order(a.client, t, 'buy', 'limit', 40, price))) as { order_id: number }).order_id);
    await must(order(a.client, t, 'sell', 'limit', 20, 10.4));
    for (const id of layers) await must(a.client.rpc('cancel_order', { p_order: id }));
    return [a.id];
  },
  // One person's two accounts, signing in from one address, passing tokens between them.
  linked_accounts: async (c) => {
    const t = await c.token();
    const shared = `192.0.2.${1 + Math.floor(c.rnd() * 250)}`;
    const [a, b] = [await c.account(3000, true, shared), await c.account(3000, true, shared)];
    await c.give(t, a, 30);
    for (let i = 0; i < 3; i++) {
      await must(order(a.client, t, 'sell', 'limit', 10, 10 + i / 100));
      await must(order(b.client, t, 'buy', 'limit', 10, 10 + i / 100));
    }
    return [a.id, b.id];
  },
  // Three accounts lift a token's price within minutes; its person sells into a buyer the rise drew in.
  pump_and_dump: async (c) => {
    const t = await c.token();
    const [person, liquidity, victim] = [await c.account(0), await c.account(0), await c.account(3000)];
    await c.db.query('update tokens set owner_id = $1 where id = $2', [person.id, t]);
    await c.give(t, person, 300);
    await c.give(t, liquidity, 80);
    for (const price of [10, 11, 12, 13]) await must(order(liquidity.client, t, 'sell', 'limit', 20, price));
    for (let i = 0; i < 3; i++) await must(order((await c.account(1000)).client, t, 'buy', 'market', 25));
    await must(order(victim.client, t, 'buy', 'limit', 30, 12.5));
    await must(order(person.client, t, 'sell', 'limit', 30, 12.5));
    return [person.id];
  },
  // At two hourly closes, the account's buy in the final minute lifts the price 3% from the trade
  // before. The suite runs in seconds, so each close's trades are moved back to that hour: the
  // first close an hour ago, the second two hours ago, each after an ordinary trade mid-hour.
  marking_close: async (c) => {
    const t = await c.token();
    const [seller, other, a] = [await c.account(0), await c.account(3000), await c.account(3000)];
    await c.give(t, seller, 100);
    for (const price of [10, 10.3, 10.61]) await must(order(seller.client, t, 'sell', 'limit', 20, price));
    const hourAgo = (hours: number, minute: number, second: number) =>
      `date_trunc('hour', now()) - interval '${hours} hours' + interval '${minute} minutes ${second} seconds'`;
    const moveBack = (who: string, at: string) =>
      c.db.query(
        `update trades set created_at = ${at} where token_id = $1 and created_at > now() - interval '1 minute'
           and (buyer_id = $2 or seller_id = $2)`,
        [t, who],
      );
    for (const [hours, bought] of [
      [3, 15],
      [2, 15],
    ] as const) {
      await must(order(other.client, t, 'buy', 'market', 5));
      await moveBack(other.id, hourAgo(hours, 30, 0));
      await must(order(a.client, t, 'buy', 'market', bought + 5));
      await moveBack(a.id, hourAgo(hours, 59, 40));
    }
    return [a.id];
  },
  // The token's person and a friend sign in from one address; the friend buys, then the person
  // posts news about the token.
  trading_ahead: async (c) => {
    const t = await c.token();
    const shared = `198.51.100.${1 + Math.floor(c.rnd() * 250)}`;
    const [person, friend, seller] = [
      await c.account(0, true, shared),
      await c.account(3000, true, shared),
      await c.account(0),
    ];
    await c.db.query('update tokens set owner_id = $1 where id = $2', [person.id, t]);
    await c.give(t, seller, 100);
    await must(order(seller.client, t, 'sell', 'limit', 100, 10));
    await must(order(friend.client, t, 'buy', 'market', 40));
    await must(
      person.client.rpc('create_post', {
        p_token: t,
        p_body: 'Big news tomorrow: a partnership I have waited years for.',
      }),
    );
    return [person.id, friend.id];
  },
  // A new account trading big on its first day.
  new_account: async (c) => {
    const t = await c.token();
    const [a, seller] = [await c.account(10_000, false), await c.account(0)];
    await c.give(t, seller, 800);
    await must(order(seller.client, t, 'sell', 'limit', 700, 10));
    await must(order(a.client, t, 'buy', 'limit', 600, 10));
    return [a.id];
  },
};
