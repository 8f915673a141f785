import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { freshToken, placeOrder, trader } from './harness/market';

describe.each(ENGINES)('price alerts on %s', (engine) => {
  const suite = adminSuite(engine);
  const alertRow = async (id: number) =>
    (
      await suite.backend.db.query<{ fired_at: string | null; fired_price: string | null }>(
        'select fired_at, fired_price from price_alerts where id = $1',
        [id],
      )
    )[0]!;

  it('fires once, in the transaction of the trade that crosses it, and is mailed', async () => {
    const token = await freshToken(suite.backend);
    const watcher = await trader(suite.backend, {});
    const seller = await trader(suite.backend, { token, tokens: 100 });
    const buyer = await trader(suite.backend, { cash: 10_000 });
    const { data, error } = await watcher.client.rpc('set_price_alert', {
      p_token: token,
      p_kind: 'above',
      p_value: 11,
    });
    expect(error).toBeNull();
    const id = (data as { id: number }).id;
    await placeOrder(seller.client, token, 'sell', 'limit', 10, 10.5);
    await placeOrder(seller.client, token, 'sell', 'limit', 10, 11.2);
    await placeOrder(buyer.client, token, 'buy', 'market', 5); // $10.50: not yet
    expect((await alertRow(id)).fired_at).toBeNull();
    await placeOrder(buyer.client, token, 'buy', 'market', 10); // through $11.20
    const fired = await alertRow(id);
    expect(fired.fired_at).not.toBeNull();
    expect(Number(fired.fired_price)).toBe(11.2);
    const [mail] = await suite.backend.db.query<{ body: string }>(
      'select body from private.account_mail where user_id = $1 order by id desc limit 1',
      [watcher.id],
    );
    expect(mail?.body).toMatch(/traded at \$11\.20, at or above your alert at \$11\.00\./);
    // Once: a later trade above it changes nothing.
    await placeOrder(buyer.client, token, 'buy', 'market', 2);
    expect(await alertRow(id)).toEqual(fired);
    const { data: mine } = await watcher.client.from('my_price_alerts').select('message').eq('id', id).single();
    expect(mine?.message).toMatch(/ traded at \$11\.20, at or above your alert at \$11\.00\.$/);
  });

  it('a fall to a level and a move within 24 hours fire too; editing re-arms', async () => {
    const token = await freshToken(suite.backend);
    const watcher = await trader(suite.backend, {});
    const seller = await trader(suite.backend, { token, tokens: 100 });
    const buyer = await trader(suite.backend, { cash: 10_000 });
    const below = (await watcher.client.rpc('set_price_alert', { p_token: token, p_kind: 'below', p_value: 9 }))
      .data as {
      id: number;
    };
    const move = (await watcher.client.rpc('set_price_alert', { p_token: token, p_kind: 'move', p_value: 5 })).data as {
      id: number;
    };
    await placeOrder(buyer.client, token, 'buy', 'limit', 1, 10);
    await placeOrder(buyer.client, token, 'buy', 'limit', 10, 8.9);
    await placeOrder(seller.client, token, 'sell', 'market', 3); // $10.00, then $8.90
    expect(Number((await alertRow(below.id)).fired_price)).toBe(8.9);
    expect(Number((await alertRow(move.id)).fired_price)).toBe(8.9); // 11% below the day's first price
    const { error } = await watcher.client.rpc('set_price_alert', {
      p_token: token,
      p_kind: 'below',
      p_value: 8,
      p_alert: below.id,
    });
    expect(error).toBeNull();
    expect((await alertRow(below.id)).fired_at).toBeNull();
  });

  it('refuses bad alerts in words, others cannot read or remove them, and a user has at most 20', async () => {
    const token = await freshToken(suite.backend);
    const watcher = await trader(suite.backend, {});
    const other = await trader(suite.backend, {});
    const set = (kind: string, value: number | null) =>
      watcher.client.rpc('set_price_alert', { p_token: token, p_kind: kind, p_value: value });
    expect((await set('above', 9)).error?.message).toMatch(/ is at \$10\.00 already: set the alert above that\.$/);
    expect((await set('below', 10)).error?.message).toMatch(/ is at \$10\.00 already: set the alert below that\.$/);
    expect((await set('sideways', 10)).error?.message).toBe(
      'An alert is for a price at or above a level, at or below one, or a move within 24 hours.',
    );
    expect((await set('move', 150)).error?.message).toBe('A move is at most 100%.');
    expect((await set('above', 10.001)).error?.message).toBe('Use at most two decimals.');
    const { data } = await set('above', 12);
    const id = (data as { id: number }).id;
    expect((await other.client.from('price_alerts').select('id').eq('id', id)).data).toEqual([]);
    expect((await other.client.rpc('delete_price_alert', { p_alert: id })).error?.message).toBe(
      `You have no price alert #${id}.`,
    );
    for (let i = 0; i < 19; i++) expect((await set('above', 13 + i)).error).toBeNull();
    expect((await set('above', 50)).error?.message).toBe(
      'You have 20 price alerts, the most allowed. Remove one to set another.',
    );
    expect((await watcher.client.rpc('delete_price_alert', { p_alert: id })).error).toBeNull();
    expect((await set('above', 50)).error).toBeNull();
  });
});
