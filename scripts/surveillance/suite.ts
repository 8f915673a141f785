/**
 * The labelled surveillance suite: honest traffic and known manipulation, through the real engine,
 * then the fraud scan, scored against who really did it (docs/admin.md#how-good-the-rules-are).
 *
 * Honest traders, aged past a day, trade a few tokens at prices near their last one: limit orders
 * that rest, market orders that take them, now and then an order cancelled. Into that traffic go
 * the patterns, each with its culprits: wash trading, a ring, spoofing, a high cancel ratio,
 * concentration, a new account trading big, layering, linked accounts, a pump and dump, marking
 * the close, trading ahead of one's own news. private.scan_fraud then runs as the scheduler runs it.
 * A pattern is caught when an alert of its rule names every culprit; an honest account is a false
 * positive when any alert names it. Seeded, so a run is repeatable.
 */ import { seeded } from '../../server/social/simulated';
import { PATTERNS, PLANT, type Pattern } from './patterns';
import { context, order, type Account, type Context, type Queryable, type SuiteBackend } from './world';

export { PATTERNS } from './patterns';
export type { SuiteBackend } from './world';

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
