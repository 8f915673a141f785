import crypto from 'node:crypto';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { randomOrders, rng } from './harness/load';
import { bankAccount, freshToken, invariantViolations, trader, type Trader } from './harness/market';

jest.setTimeout(180_000);

const SOAK_MS = Number(process.env.SOAK_MS ?? 8000);

/** Money in and out, reads and watchlist changes beside the trading, until `until`. */
async function sideTraffic(
  backend: Backend,
  t: Trader,
  token: string,
  seed: number,
  until: () => boolean,
): Promise<string[]> {
  const random = rng(seed);
  const failures: string[] = [];
  const dest = await bankAccount(backend, t, 'Soak', '11112222');
  while (!until()) {
    const pick = random();
    const r =
      pick < 0.3
        ? await t.client.rpc('create_deposit', {
            p_amount: 10 + Math.floor(random() * 200),
            p_card: random() < 0.2 ? '4000000000000002' : '4242424242424242',
            p_idempotency_key: crypto.randomUUID(),
          })
        : pick < 0.5
          ? await t.client.rpc('create_withdrawal', {
              p_amount: 10 + Math.floor(random() * 50),
              p_destination: dest,
              p_idempotency_key: crypto.randomUUID(),
            })
          : pick < 0.8
            ? await t.client.from('market_tokens').select('id, price, holders').limit(20)
            : random() < 0.5
              ? await t.client.from('watchlist').insert({ user_id: t.id, token_id: token })
              : await t.client.from('watchlist').delete().eq('user_id', t.id).eq('token_id', token);
    if (r.status >= 500) failures.push(`${r.status} ${r.error?.message}`);
  }
  return failures;
}

describe.each(ENGINES)(`a soak of mixed load (${SOAK_MS} ms) on %s`, (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, { payments: { delayMs: 20, payoutAfterMs: 500 } })();
  });
  afterAll(() => backend.close());

  it('keeps every invariant: trading, deposits, withdrawals, reads and writes at once', async () => {
    const tokens = [await freshToken(backend), await freshToken(backend)];
    const traders: Trader[] = [];
    for (let i = 0; i < 6; i++) traders.push(await trader(backend, { cash: 3000, token: tokens[i % 2], tokens: 200 }));
    const end = Date.now() + SOAK_MS;
    const until = () => Date.now() > end;
    const [orders, side] = await Promise.all([
      Promise.all(traders.map((t, i) => randomOrders(t.client, tokens, { count: 100_000, seed: 900 + i, until }))),
      Promise.all(traders.slice(0, 4).map((t, i) => sideTraffic(backend, t, tokens[0]!, 700 + i, until))),
    ]);
    expect(orders.flatMap((r) => r.failures)).toEqual([]);
    expect(side.flat()).toEqual([]);
    const placed = orders.reduce((n, r) => n + r.acknowledged.length, 0);
    console.log(`${engine}: ${placed} orders acknowledged in ${SOAK_MS} ms beside deposits, withdrawals and reads`);
    expect(placed).toBeGreaterThan(50);
    // Let the provider answer every deposit and withdrawal, then check the books.
    await eventually(async () => {
      const [{ n }] = (await backend.db.query<{ n: string }>(
        `select count(*) as n from wallet_transactions where status in ('pending', 'processing')`,
      )) as [{ n: string }];
      return Number(n) === 0 ? true : undefined;
    }, 30_000);
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
