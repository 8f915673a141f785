import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { freshToken, trader } from './harness/market';

describe.each(ENGINES)('candles kept from trades on %s', (engine) => {
  const suite = adminSuite(engine);

  it('each interval holds the open, high, low, close and volume of its trades, whatever order they came in', async () => {
    const token = await freshToken(suite.backend);
    const buyer = await trader(suite.backend, { cash: 100_000 });
    const seller = await trader(suite.backend, { token, tokens: 1000 });
    const trade = (price: number, amount: number, at: string) =>
      suite.backend.db.query(`select private.settle_trade($1, $2, $3, $4, $5, 'buy', null, null, 0, false, $6)`, [
        token,
        buyer.id,
        seller.id,
        price,
        amount,
        at,
      ]);
    // 10:00-10:01 and 10:01-10:02 UTC; the first minute's open arrives last.
    await trade(10.5, 5, '2026-11-20T10:00:40Z');
    await trade(11, 2, '2026-11-20T10:00:50Z');
    await trade(9.8, 1, '2026-11-20T10:01:10Z');
    await trade(10.1, 3, '2026-11-20T10:00:05Z');
    const { data, error } = await buyer.client.rpc('candles', { p_token: token, p_interval: '1m' });
    expect(error).toBeNull();
    expect(data).toEqual([
      { bucket: '2026-11-20T10:00:00+00:00', open: 10.1, high: 11, low: 10.1, close: 11, volume: 10 },
      { bucket: '2026-11-20T10:01:00+00:00', open: 9.8, high: 9.8, low: 9.8, close: 9.8, volume: 1 },
    ]);
    const hour = await buyer.client.rpc('candles', { p_token: token, p_interval: '1h' });
    expect(hour.data).toEqual([
      { bucket: '2026-11-20T10:00:00+00:00', open: 10.1, high: 11, low: 9.8, close: 9.8, volume: 11 },
    ]);
    // Computed again from the trades, the candles are the same.
    const stored = await suite.backend.db.query('select * from candles where token_id = $1 order by seconds, bucket', [
      token,
    ]);
    await suite.backend.db.query('select private.rebuild_candles()');
    expect(
      await suite.backend.db.query('select * from candles where token_id = $1 order by seconds, bucket', [token]),
    ).toEqual(stored);
    expect(stored).toHaveLength(2 + 5); // two 1m candles; one each of 5m, 15m, 1h, 4h and 1d
  });

  it('reads the latest candles up to a limit, oldest first, and refuses an interval it does not keep', async () => {
    const token = await freshToken(suite.backend);
    const buyer = await trader(suite.backend, { cash: 100_000 });
    const seller = await trader(suite.backend, { token, tokens: 1000 });
    for (let d = 1; d <= 5; d++)
      await suite.backend.db.query(
        `select private.settle_trade($1, $2, $3, $4, 1, 'buy', null, null, 0, false, now() - make_interval(days => $5))`,
        [token, buyer.id, seller.id, 10 + d, 6 - d],
      );
    const { data } = await buyer.client.rpc('candles', { p_token: token, p_interval: '1d', p_limit: 3 });
    expect((data as { close: number }[]).map((c) => c.close)).toEqual([13, 14, 15]);
    const refused = await buyer.client.rpc('candles', { p_token: token, p_interval: '2h' });
    expect(refused.error?.message).toBe('The interval must be 1m, 5m, 15m, 1h, 4h or 1d.');
  });
});
