import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, signedIn } from './harness/clients';
import { cash, freshToken, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

/*
 * The person behind a token receives a share of the exchange's fees on every trade in it
 * (exchange_settings.creator_fee_share_bps, 20%), in the transaction that settles the trade.
 */
describe.each(ENGINES)("the creator's fee share on %s", (engine) => {
  let backend: Backend;
  let person: Trader;
  let token: string;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    person = await trader(backend);
    token = await freshToken(backend, 10_000, 10);
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [person.id, token]);
  });
  afterAll(async () => {
    expect(await invariantViolations(backend)).toEqual([]);
    await backend.close();
  });

  it("credits 20% of both sides' fees to the token's person as the trade settles, in their wallet history", async () => {
    const seller = await trader(backend, { token, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 10, 10)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 10)).error).toBeNull();
    // $100 traded: $2.00 fee on each side, $4.00 in all, of which 20% is $0.80.
    const [trade] = await backend.db.query<{ id: string; creator_id: string; creator_share: string }>(
      'select id, creator_id, creator_share from trades where token_id = $1',
      [token],
    );
    expect(trade).toMatchObject({ creator_id: person.id, creator_share: '0.80' });
    expect(await cash(backend, person.id)).toEqual({ available: 0.8, reserved: 0 });
    const { data: history } = await person.client.from('wallet_history').select('type, description, effect, balance');
    expect(history).toEqual([
      expect.objectContaining({
        type: 'Fee Share',
        effect: 0.8,
        balance: 0.8,
        description: expect.stringMatching(/^Your share of the fees on 10 /),
      }),
    ]);
    // The buyer and the seller see their own trade, not the share.
    const seen = await buyer.client.from('wallet_history').select('type');
    expect((seen.data as { type: string }[]).map((h) => h.type)).toEqual(['Deposit', 'Buy', 'Trade Fee']);
    // The person reads the trade that paid them (row-level security), and their statement counts it.
    expect((await person.client.from('trades').select('id')).data).toEqual([{ id: Number(trade!.id) }]);
    const today = new Date().toISOString().slice(0, 10);
    const { data: statement } = await person.client.rpc('my_statement', { p_from: today, p_to: today });
    expect(statement).toMatchObject({ fee_share: 0.8, closing_cash: 0.8 });
  });

  it("reports the exchange's revenue net of the share, and follows the setting", async () => {
    const admin = await signedIn(backend.url, ADMIN);
    const { data } = await admin.rpc('admin_revenue', { p_group: 'token', p_days: 1 });
    const row = (data as { bucket: string; fees: number; creator_share: number; revenue: number }[]).find(
      (r) => r.bucket.includes(`(@`) && r.fees === 4,
    );
    expect(row).toMatchObject({ fees: 4, creator_share: 0.8, revenue: 3.2 });

    expect(
      (await admin.rpc('admin_update_settings', { p_changes: { creator_fee_share_bps: 10001 } })).error?.message,
    ).toBe("The creator's share of the fees must be between 0 and 10,000 basis points (0% to 100%).");
    expect((await admin.rpc('admin_update_settings', { p_changes: { creator_fee_share_bps: 0 } })).error).toBeNull();
    try {
      const seller = await trader(backend, { token, tokens: 100 });
      const buyer = await trader(backend, { cash: 1000 });
      await placeOrder(seller.client, token, 'sell', 'limit', 5, 10);
      expect((await placeOrder(buyer.client, token, 'buy', 'market', 5)).error).toBeNull();
      expect(await cash(backend, person.id)).toEqual({ available: 0.8, reserved: 0 });
    } finally {
      await admin.rpc('admin_update_settings', { p_changes: { creator_fee_share_bps: 2000 } });
    }
  });

  it('gives nothing on a token without a person', async () => {
    const plain = await freshToken(backend, 1000, 10);
    const seller = await trader(backend, { token: plain, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    await placeOrder(seller.client, plain, 'sell', 'limit', 5, 10);
    expect((await placeOrder(buyer.client, plain, 'buy', 'market', 5)).error).toBeNull();
    const [t] = await backend.db.query<{ creator_id: string | null; creator_share: string }>(
      'select creator_id, creator_share from trades where token_id = $1',
      [plain],
    );
    expect(t).toEqual({ creator_id: null, creator_share: '0.00' });
  });
});
