import type { Backend } from '../server/index';
import { ENGINES, backendFor } from '../harness/backends';
import { randomOrders } from '../harness/load';
import { freshToken, invariantViolations, trader } from '../harness/market';

jest.setTimeout(180_000);

describe.each(ENGINES)('concurrent trading on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('16 clients placing random orders at once keep every invariant', async () => {
    const tokens = [await freshToken(backend), await freshToken(backend)];
    const traders = [];
    for (let i = 0; i < 16; i++) {
      const t = await trader(backend, { cash: 5000 });
      for (const token of tokens) await backend.db.query('select private.issue_tokens($1, $2, 200)', [token, t.id]);
      traders.push(t);
    }
    const held = async () =>
      backend.db.query<{ token_id: string; n: string }>(
        'select token_id, sum(amount)::text as n from holdings where token_id = any($1) group by token_id order by token_id',
        [tokens],
      );
    const before = await held();

    const results = await Promise.all(
      traders.map((t, i) => randomOrders(t.client, tokens, { count: 40, seed: i + 1 })),
    );
    expect(results.flatMap((r) => r.failures)).toEqual([]);
    const trades = await backend.db.query<{ n: string }>(
      'select count(*)::text as n from trades where token_id = any($1)',
      [tokens],
    );
    expect(Number(trades[0]!.n)).toBeGreaterThan(20); // the load really traded

    expect(await invariantViolations(backend)).toEqual([]);
    expect(await held()).toEqual(before); // trades move tokens, never create or destroy them
  });
});
