/**
 * The labelled surveillance suite: honest traffic and known manipulation, through the real engine,
 * then the fraud scan, scored against who really did it (docs/admin.md#how-good-the-rules-are).
 *
 * Honest traders, aged past a day, trade a few tokens at prices near their last one: limit orders
 * that rest, market orders that take them, now and then an order cancelled. Into that traffic go
 * the patterns, each with its culprits: wash trading, a ring, spoofing, a high cancel ratio,
 * concentration, a new account trading big. private.scan_fraud then runs as the scheduler runs it.
 * A pattern is caught when an alert of its rule names every culprit; an honest account is a false
 * positive when any alert names it. Seeded, so a run is repeatable.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { newUser } from '../../integration/harness/clients';
import { seeded } from '../../server/social/simulated';

interface Queryable {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}
export interface SuiteBackend {
  url: string;
  db: Queryable;
}
interface Account {
  id: string;
  client: SupabaseClient;
}

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
] as const;
type Pattern = (typeof PATTERNS)[number];

export interface SurveillanceResult {
  /** Caught instances over all instances, every pattern together. */
  recall: number;
  /** Honest accounts any alert named, over all honest accounts. */
  false_positive_rate: number;
  patterns: Record<Pattern, { instances: number; caught: number; recall: number }>;
  honest_accounts: number;
  honest_flagged: number;
  /** Trades between honest accounts: the traffic the patterns hide in. */
  honest_trades: number;
  alerts: number;
}

async function must<T>(call: PromiseLike<{ data: T; error: { message: string } | null }>): Promise<T> {
  const { data, error } = await call;
  if (error) throw new Error(error.message);
  return data;
}
const order = (
  c: SupabaseClient,
  token: string,
  side: 'buy' | 'sell',
  type: 'limit' | 'market',
  amount: number,
  price?: number,
) => c.rpc('place_order', { p_token: token, p_side: side, p_type: type, p_amount: amount, p_price: price ?? null });

/** What the suite makes accounts and tokens with. */
function context(backend: SuiteBackend, rnd: () => number) {
  const db = backend.db;
  // Each account signs in from an address of its own, as people do (the suite's clients all
  // connect from this machine); linked accounts share one.
  let addresses = 0;
  const account = async (cash: number, aged = true, address?: string): Promise<Account> => {
    const u = await newUser(backend.url, 'sv');
    addresses++;
    const ip = address ?? `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
    await db.query('update auth.sessions set ip = $2::inet where user_id = $1', [u.id, ip]);
    if (cash) await db.query('select private.record_deposit($1, $2)', [u.id, cash]);
    if (aged) await db.query(`update profiles set created_at = now() - interval '30 days' where id = $1`, [u.id]);
    return { id: u.id, client: u.client };
  };
  const token = async (): Promise<string> => {
    const n = `sv${Date.now().toString(36)}${Math.floor(rnd() * 1e6)}`;
    const [row] = await db.query<{ id: string }>(
      `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
       values ($1, $1, 'Test', 50, 1000000, 10) returning id`,
      [n],
    );
    return row!.id;
  };
  const give = (t: string, a: Account, n: number) => db.query('select private.issue_tokens($1, $2, $3)', [t, a.id, n]);
  return { db, rnd, account, token, give };
}
type Context = ReturnType<typeof context>;

/** Honest traders on four busy tokens: orders near the price, market orders, now and then a cancel. */
async function honestTraffic(c: Context, honest: number, rounds: number) {
  const tokens = [await c.token(), await c.token(), await c.token(), await c.token()];
  const people: Account[] = [];
  for (let i = 0; i < honest; i++) {
    const a = await c.account(3000);
    for (const t of tokens) await c.give(t, a, 200);
    people.push(a);
  }
  const { rnd } = c;
  for (let r = 0; r < rounds; r++) {
    for (const a of people) {
      const t = tokens[Math.floor(rnd() * tokens.length)]!;
      const amount = 1 + Math.floor(rnd() * 8);
      const roll = rnd();
      if (roll < 0.4)
        await order(a.client, t, rnd() < 0.5 ? 'buy' : 'sell', 'limit', amount, Math.round((9.5 + rnd()) * 100) / 100);
      else if (roll < 0.85) await order(a.client, t, rnd() < 0.5 ? 'buy' : 'sell', 'market', amount);
      else {
        // A resting order thought better of.
        const bid = Math.round((8 + rnd()) * 100) / 100;
        const placed = (await order(a.client, t, 'buy', 'limit', amount, bid)).data as { order_id?: number } | null;
        if (placed?.order_id) await a.client.rpc('cancel_order', { p_order: placed.order_id });
      }
    }
  }
  return { tokens, people };
}

/** Places and cancels `n` bids of `amount` at `price`, one at a time. */
async function placeAndCancel(a: Account, t: string, n: number, amount: number, price: number) {
  for (let i = 0; i < n; i++) {
    const placed = await must(order(a.client, t, 'buy', 'limit', amount, price));
    await must(a.client.rpc('cancel_order', { p_order: (placed as { order_id: number }).order_id }));
  }
}

/** Each pattern once, as its culprits would: returns who they are. */
const PLANT: Record<Pattern, (c: Context, busy: string) => Promise<string[]>> = {
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

/** The scan, as the scheduler runs it, scored against the culprits and the honest accounts. */
async function score(
  db: Queryable,
  people: Account[],
  culprits: Record<Pattern, string[][]>,
): Promise<SurveillanceResult> {
  await db.query('select private.scan_fraud()');
  const alerts = await db.query<{ rule: string; accounts: string[] }>(
    `select rule, accounts::text[] as accounts from fraud_alerts where status in ('open', 'reviewing')`,
  );
  const patterns = {} as SurveillanceResult['patterns'];
  let [all, caughtAll] = [0, 0];
  for (const p of PATTERNS) {
    const caught = culprits[p].filter((group) =>
      alerts.some((a) => a.rule === p && group.every((id) => a.accounts.includes(id))),
    ).length;
    patterns[p] = {
      instances: culprits[p].length,
      caught,
      recall: culprits[p].length ? caught / culprits[p].length : 1,
    };
    all += culprits[p].length;
    caughtAll += caught;
  }
  const [traded] = await db.query<{ n: string }>(
    'select count(*)::text as n from trades where buyer_id = any ($1::uuid[]) and seller_id = any ($1::uuid[])',
    [people.map((a) => a.id)],
  );
  const named = new Set(alerts.flatMap((a) => a.accounts));
  const flagged = people.filter((a) => named.has(a.id)).length;
  return {
    recall: caughtAll / all,
    false_positive_rate: flagged / people.length,
    patterns,
    honest_accounts: people.length,
    honest_flagged: flagged,
    honest_trades: Number(traded!.n),
    alerts: alerts.length,
  };
}

export async function runSurveillanceSuite(
  backend: SuiteBackend,
  {
    honest = 40,
    rounds = 6,
    seed = 2026,
    instances = 2,
  }: { honest?: number; rounds?: number; seed?: number; instances?: number } = {},
): Promise<SurveillanceResult> {
  const c = context(backend, seeded(`surveillance-${seed}`));
  const { tokens, people } = await honestTraffic(c, honest, rounds);
  const culprits = Object.fromEntries(PATTERNS.map((p) => [p, [] as string[][]])) as Record<Pattern, string[][]>;
  for (let k = 0; k < instances; k++)
    for (const p of PATTERNS) culprits[p].push(await PLANT[p](c, tokens[(k + PATTERNS.indexOf(p)) % tokens.length]!));
  return score(c.db, people, culprits);
}
