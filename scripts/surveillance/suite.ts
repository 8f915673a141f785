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

export const PATTERNS = ['wash_trading', 'ring', 'spoofing', 'cancel_ratio', 'concentration', 'new_account'] as const;
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

/** A small seeded generator (mulberry32): the same seed, the same traffic. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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

export async function runSurveillanceSuite(
  backend: SuiteBackend,
  {
    honest = 40,
    rounds = 6,
    seed = 2026,
    instances = 2,
  }: { honest?: number; rounds?: number; seed?: number; instances?: number } = {},
): Promise<SurveillanceResult> {
  const rnd = random(seed);
  const db = backend.db;
  const account = async (cash: number, aged = true): Promise<Account> => {
    const u = await newUser(backend.url, 'sv');
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

  // Honest traffic on four busy tokens.
  const tokens = [await token(), await token(), await token(), await token()];
  const people: Account[] = [];
  for (let i = 0; i < honest; i++) {
    const a = await account(3000);
    for (const t of tokens) await give(t, a, 200);
    people.push(a);
  }
  for (let r = 0; r < rounds; r++) {
    for (const a of people) {
      const t = tokens[Math.floor(rnd() * tokens.length)]!;
      const amount = 1 + Math.floor(rnd() * 8);
      const price = Math.round((9.5 + rnd()) * 100) / 100;
      const roll = rnd();
      if (roll < 0.4) await order(a.client, t, rnd() < 0.5 ? 'buy' : 'sell', 'limit', amount, price);
      else if (roll < 0.85) await order(a.client, t, rnd() < 0.5 ? 'buy' : 'sell', 'market', amount);
      else {
        // Now and then a resting order is thought better of.
        const placed = (await order(a.client, t, 'buy', 'limit', amount, Math.round((8 + rnd()) * 100) / 100)).data as {
          order_id?: number;
        } | null;
        if (placed?.order_id) await a.client.rpc('cancel_order', { p_order: placed.order_id });
      }
    }
  }

  // The patterns, each with its culprits.
  const culprits: Record<Pattern, string[][]> = {
    wash_trading: [],
    ring: [],
    spoofing: [],
    cancel_ratio: [],
    concentration: [],
    new_account: [],
  };
  for (let k = 0; k < instances; k++) {
    // Wash trading: two accounts trade one token back and forth, ending where they began (a token
    // of their own, so no honest order on the book takes their part).
    {
      const t = await token();
      const [a, b] = [await account(3000), await account(3000)];
      await give(t, a, 50);
      await give(t, b, 50);
      for (let i = 0; i < 3; i++) {
        await must(order(a.client, t, 'sell', 'limit', 10, 10.01));
        await must(order(b.client, t, 'buy', 'limit', 10, 10.01));
        await must(order(b.client, t, 'sell', 'limit', 10, 10.02));
        await must(order(a.client, t, 'buy', 'limit', 10, 10.02));
      }
      culprits.wash_trading.push([a.id, b.id]);
    }
    // A ring: the same ten tokens around four accounts and back to the first.
    {
      const t = await token();
      const ring = [await account(3000), await account(3000), await account(3000), await account(3000)];
      await give(t, ring[0]!, 10);
      for (let i = 0; i < ring.length; i++) {
        const [from, to] = [ring[i]!, ring[(i + 1) % ring.length]!];
        await must(order(from.client, t, 'sell', 'limit', 10, 10));
        await must(order(to.client, t, 'buy', 'limit', 10, 10));
      }
      culprits.ring.push(ring.map((a) => a.id));
    }
    // Spoofing: large bids far from the price, each cancelled within seconds.
    {
      const t = tokens[(k + 1) % tokens.length]!;
      const a = await account(20_000);
      for (let i = 0; i < 4; i++) {
        const placed = await must(order(a.client, t, 'buy', 'limit', 200, 9));
        await must(a.client.rpc('cancel_order', { p_order: (placed as { order_id: number }).order_id }));
      }
      culprits.spoofing.push([a.id]);
    }
    // A high cancel ratio: many small orders, all cancelled.
    {
      const t = tokens[(k + 2) % tokens.length]!;
      const a = await account(2000);
      for (let i = 0; i < 25; i++) {
        const placed = await must(order(a.client, t, 'buy', 'limit', 1, 5));
        await must(a.client.rpc('cancel_order', { p_order: (placed as { order_id: number }).order_id }));
      }
      culprits.cancel_ratio.push([a.id]);
    }
    // Concentration: one account buys most of a quiet token's volume.
    {
      const t = await token();
      const [seller, buyer] = [await account(0), await account(5000)];
      await give(t, seller, 500);
      await must(order(seller.client, t, 'sell', 'limit', 300, 10));
      for (let i = 0; i < 6; i++) await must(order(buyer.client, t, 'buy', 'market', 20));
      culprits.concentration.push([buyer.id]);
    }
    // A new account trading big on its first day.
    {
      const t = await token();
      const [a, seller] = [await account(10_000, false), await account(0)];
      await give(t, seller, 800);
      await must(order(seller.client, t, 'sell', 'limit', 700, 10));
      await must(order(a.client, t, 'buy', 'limit', 600, 10));
      culprits.new_account.push([a.id]);
    }
  }

  await db.query('select private.scan_fraud()');
  const alerts = await db.query<{ rule: string; accounts: string[] }>(
    `select rule, accounts::text[] as accounts from fraud_alerts where status in ('open', 'reviewing')`,
  );
  const patterns = {} as SurveillanceResult['patterns'];
  let instancesAll = 0;
  let caughtAll = 0;
  for (const p of PATTERNS) {
    const caught = culprits[p].filter((group) =>
      alerts.some((a) => a.rule === p && group.every((id) => a.accounts.includes(id))),
    ).length;
    patterns[p] = {
      instances: culprits[p].length,
      caught,
      recall: culprits[p].length ? caught / culprits[p].length : 1,
    };
    instancesAll += culprits[p].length;
    caughtAll += caught;
  }
  const ids = people.map((a) => a.id);
  const [traded] = await db.query<{ n: string }>(
    'select count(*)::text as n from trades where buyer_id = any ($1::uuid[]) and seller_id = any ($1::uuid[])',
    [ids],
  );
  const named = new Set(alerts.flatMap((a) => a.accounts));
  const honestFlagged = people.filter((a) => named.has(a.id)).length;
  return {
    recall: caughtAll / instancesAll,
    false_positive_rate: honestFlagged / people.length,
    patterns,
    honest_accounts: people.length,
    honest_flagged: honestFlagged,
    honest_trades: Number(traded!.n),
    alerts: alerts.length,
  };
}
