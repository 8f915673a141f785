import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, signedIn } from './harness/clients';
import { cash, freshToken, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

/*
 * Maker and taker fees: the order that trades at once pays the taker fee (exchange_settings.fee_bps),
 * the resting order it meets the maker fee, which may be lower, zero or a rebate no larger than the
 * taker fee. Both start at the specification's single 2%.
 */
describe.each(ENGINES)('maker and taker fees on %s', (engine) => {
  let backend: Backend;
  let admin: SupabaseClient;
  let person: Trader;
  let token: string;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    admin = await signedIn(backend.url, ADMIN);
    person = await trader(backend);
    token = await freshToken(backend, 10_000, 10);
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [person.id, token]);
  });
  afterAll(async () => {
    expect(await invariantViolations(backend)).toEqual([]);
    await backend.close();
  });

  const settings = (changes: Record<string, number>) =>
    admin.rpc('admin_update_settings', { p_changes: changes, p_reason: 'Maker programme.' });
  const lastTrade = async () =>
    (
      await backend.db.query<{ buyer_fee: string; seller_fee: string; fee_bps: number; maker_fee_bps: number }>(
        'select buyer_fee, seller_fee, fee_bps, maker_fee_bps from trades where token_id = $1 order by id desc limit 1',
        [token],
      )
    )[0]!;

  it('starts as one fee for both sides, and a change of the taker fee alone keeps them one', async () => {
    const [s] = await backend.db.query<{ fee_bps: number; maker_fee_bps: number }>(
      'select fee_bps, maker_fee_bps from exchange_settings',
    );
    expect(s).toEqual({ fee_bps: 200, maker_fee_bps: 200 });
    expect((await settings({ fee_bps: 150 })).data).toMatchObject({ fee_bps: 150, maker_fee_bps: 150 });
    expect((await settings({ fee_bps: 200 })).data).toMatchObject({ fee_bps: 200, maker_fee_bps: 200 });
  });

  it('refuses a maker fee above the taker fee, or a rebate beyond it, in words', async () => {
    for (const maker of [201, -201])
      expect((await settings({ maker_fee_bps: maker })).error?.message).toBe(
        'The maker fee must be between -200 and 200 basis points: at most the taker fee, and a rebate (below 0) no larger than it.',
      );
  });

  it('charges the taker the taker fee and the resting order the maker fee, and says which applied', async () => {
    expect((await settings({ maker_fee_bps: 50 })).error).toBeNull();
    const maker = await trader(backend, { token, tokens: 100 });
    const taker = await trader(backend, { cash: 1_000 });
    expect((await placeOrder(maker.client, token, 'sell', 'limit', 10, 10)).error).toBeNull();
    const bought = await placeOrder(taker.client, token, 'buy', 'market', 10);
    expect(bought.data).toMatchObject({ fee: 2, total: 102 });
    // $100 traded: the taker pays 2% ($2.00), the maker 0.5% ($0.50).
    expect(await lastTrade()).toEqual({ buyer_fee: '2.00', seller_fee: '0.50', fee_bps: 200, maker_fee_bps: 50 });
    expect(await cash(backend, maker.id)).toEqual({ available: 99.5, reserved: 0 });
    const mine = await maker.client.from('my_trades').select('fee, total, liquidity');
    expect(mine.data).toEqual([{ fee: 0.5, total: 99.5, liquidity: 'maker' }]);
    const theirs = await taker.client.from('my_trades').select('fee, liquidity');
    expect(theirs.data).toEqual([{ fee: 2, liquidity: 'taker' }]);
    const [{ name }] = (await backend.db.query('select name from tokens where id = $1', [token])) as [{ name: string }];
    const revenue = await admin.rpc('admin_revenue', { p_group: 'token', p_days: 1 });
    const rows = revenue.data as { bucket: string; fees: number }[];
    expect(rows.find((r) => r.bucket.startsWith(`${name} (`))).toMatchObject({
      fees: 2.5,
      taker_fees: 2,
      maker_fees: 0.5,
    });
  });

  it('pays a maker a rebate out of the taker fee: cash moves exactly, and the wallet history says so', async () => {
    expect((await settings({ maker_fee_bps: -100 })).error).toBeNull();
    const maker = await trader(backend, { cash: 1_000 });
    const taker = await trader(backend, { token, tokens: 100 });
    // A resting buy holds back the taker fee (the most it could pay): $102.00.
    expect((await placeOrder(maker.client, token, 'buy', 'limit', 10, 10)).error).toBeNull();
    expect(await cash(backend, maker.id)).toEqual({ available: 898, reserved: 102 });
    // Filled in three parts: the rebate is 1% of the order's whole value, rounded once.
    for (const n of [3, 3, 4]) expect((await placeOrder(taker.client, token, 'sell', 'market', n)).error).toBeNull();
    expect(await cash(backend, maker.id)).toEqual({ available: 901, reserved: 0 });
    const [order] = await backend.db.query<{ fees_paid: string }>(`select fees_paid from orders where user_id = $1`, [
      maker.id,
    ]);
    expect(order!.fees_paid).toBe('-1.00');
    const { data: history } = await maker.client
      .from('wallet_history')
      .select('type, description, effect')
      .eq('type', 'Trade Fee');
    expect(history!.map((h) => h.description)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Maker rebate on the buy of \d+ /)]),
    );
    expect(history!.reduce((s, h) => s + Number(h.effect), 0)).toBeCloseTo(1, 2);
    // The exchange keeps the taker fees less the rebates; the token's person a share of that.
    const trades = await backend.db.query<{ net: string; share: string }>(
      `select buyer_fee + seller_fee as net, creator_share as share from trades
        where buyer_id = $1 order by id`,
      [maker.id],
    );
    for (const t of trades) {
      expect(Number(t.net)).toBeGreaterThanOrEqual(0);
      expect(Number(t.share)).toBeLessThanOrEqual(Number(t.net));
    }
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
