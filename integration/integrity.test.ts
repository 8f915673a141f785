import type { TokenIntegrity } from '@repex/shared-ui/contracts';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, signedIn } from './harness/clients';
import { freshToken, placeOrder, trader } from './harness/market';

/** token_integrity (integrity.sql): each figure from the records it is kept in, and the reading that goes with them. */
describe.each(ENGINES)("a token's integrity on %s", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('reads halts, confirmed manipulation, cancelled orders, concentration and the founder, in words', async () => {
    const token = await freshToken(backend, 10_000, 10);
    const person = await trader(backend);
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [person.id, token]);
    await backend.db.query('select private.issue_tokens($1, $2, 1000)', [token, person.id]);
    await backend.db.query(
      `insert into vesting_grants (token_id, user_id, total, starts_at, cliff_months, months)
       values ($1, $2, 1000, now() - interval '12 months', 3, 24)`,
      [token, person.id],
    );
    const [a, b, reader] = [
      await trader(backend, { cash: 5000, token, tokens: 500 }),
      await trader(backend, { cash: 5000 }),
      await trader(backend),
    ];
    const read = async () => {
      const { data, error } = await reader.client.rpc('token_integrity', { p_token: token });
      if (error) throw new Error(error.message);
      return data as TokenIntegrity;
    };

    // A quiet book: nothing traded, nothing halted; the person and one holder hold 15% of the supply.
    let i = await read();
    expect(i).toMatchObject({
      level: 'good',
      halts: 0,
      volume: 0,
      top10_share: 0.15,
      founder: { granted: 1000, sold_30d: 0 },
    });
    expect(i.reading).toContain('Trading was not halted in the last 30 days.');
    expect(i.reading).toContain('Nothing traded in the last 30 days.');

    // Two accounts trade; an admin confirms an alert naming both: all the volume is flagged.
    await placeOrder(a.client, token, 'sell', 'limit', 10, 10);
    await placeOrder(b.client, token, 'buy', 'market', 10);
    expect((await read()).reading).toContain(
      'No order placed in the last 30 days was cancelled unfilled; 2 orders traded.',
    );
    for (let k = 0; k < 3; k++) await placeOrder(a.client, token, 'sell', 'limit', 5, 20 + k);
    await a.client.rpc('cancel_all_orders', { p_token: token });
    await backend.db.query(
      `insert into fraud_alerts (rule, severity, accounts, token_id, summary, status)
       values ('wash_trading', 'high', $1, $2, 'test', 'confirmed')`,
      [[a.id, b.id].sort(), token],
    );
    const admin = await signedIn(backend.url, ADMIN);
    expect(
      (await admin.rpc('admin_set_token_halt', { p_token: token, p_halted: true, p_reason: 'Under review' })).error,
    ).toBeNull();
    i = await read();
    expect(i).toMatchObject({
      level: 'concern',
      halted_now: true,
      halts: 1,
      volume: 100,
      flagged_share: 1,
      orders_cancelled: 3,
      orders_traded: 2,
      cancel_to_fill: 1.5,
    });
    expect(i.reading).toEqual(
      expect.arrayContaining([
        'Trading is halted now: Under review.',
        "100% of the last 30 days' volume was between accounts RepX confirmed were manipulating the market.",
        '1.5 orders were cancelled unfilled for each that traded.',
        'The ten largest holders hold 15% of the supply.',
      ]),
    );
    expect(i.reading.at(-1)).toMatch(
      /^The person has vested \d+ of their 1,000 founder tokens and sold 0 in the last 30 days\.$/,
    );
    expect((await reader.client.rpc('token_integrity', { p_token: crypto.randomUUID() })).error?.message).toBe(
      'That token does not exist.',
    );
  });
});
