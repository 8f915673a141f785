import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ADMIN, signedIn } from './harness/clients';
import { ENGINES, backendFor } from './harness/backends';
import {
  book,
  cash,
  closeOffering,
  holding,
  invariantViolations,
  offeringToken,
  placeOrder,
  trader,
  type Trader,
} from './harness/market';

/*
 * A new token's offering is a batch auction (offerings.sql). Each example below is computed by
 * hand: the clearing price, each bid's allocation, what each account paid and what the person
 * received. Fees are 2% on each side; the person's share is 20% of both.
 */
describe.each(ENGINES)('a batch-auction offering on %s', (engine) => {
  let backend: Backend;
  let admin: SupabaseClient;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    admin = await signedIn(backend.url, ADMIN);
  });
  afterAll(() => backend.close());

  const bid = (t: Trader, token: string, price: number, amount: number) =>
    t.client.rpc('place_offering_bid', { p_token: token, p_price: price, p_amount: amount });
  const shown = async (t: Trader, token: string) =>
    (
      await t.client
        .from('offering_book')
        .select('indicative_price, indicative_volume, demand, clearing_price, sold')
        .eq('token_id', token)
        .single()
    ).data;
  const allocations = async (token: string) =>
    Object.fromEntries(
      (
        await backend.db.query<{ user_id: string; allocated: string }>(
          `select b.user_id, b.allocated from offering_bids b join offerings f on f.id = b.offering_id where f.token_id = $1`,
          [token],
        )
      ).map((r) => [r.user_id, Number(r.allocated)]),
    );
  it('undersubscribed: every bid fills at the lowest price bid, the rest stays with the issuance account, and trading opens there', async () => {
    const token = await offeringToken(backend, { supply: 1000, price: 10, cap: 1000 });
    const [a, b] = [await trader(backend, { cash: 10_000 }), await trader(backend, { cash: 10_000 })];
    expect((await bid(a, token, 12, 300)).error).toBeNull();
    expect((await bid(b, token, 10.5, 200)).error).toBeNull();
    await closeOffering(backend, token);
    expect(await allocations(token)).toEqual({ [a.id]: 300, [b.id]: 200 });
    const [issuance] = await backend.db.query<{ amount: string }>(
      'select amount from holdings where token_id = $1 and user_id = private.issuance_account()',
      [token],
    );
    expect(Number(issuance!.amount)).toBe(500);
    // Continuous trading opens at the clearing price: the last price, and the market band's centre.
    const { data: listed } = await a.client.from('market_tokens').select('price').eq('id', token).single();
    expect(listed).toEqual({ price: 10.5 });
    expect((await placeOrder(a.client, token, 'sell', 'limit', 10, 11)).error).toBeNull();
    expect((await placeOrder(b.client, token, 'buy', 'market', 10)).error).toBeNull();
    expect(await holding(backend, b.id, token)).toEqual({ amount: 210, reserved: 0 });
    expect(await book(backend, token)).toEqual([]);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('an admin offers the unsold tokens again by a new auction; trading waits for its close', async () => {
    const token = await offeringToken(backend, { supply: 1000, price: 10, cap: 1000 });
    const [a, b] = [await trader(backend, { cash: 20_000 }), await trader(backend, { cash: 20_000 })];
    expect((await bid(a, token, 10.5, 300)).error).toBeNull();
    await closeOffering(backend, token);
    // A holder's resting sell, then the admin's new offering of the 700 left, from the last price.
    expect((await placeOrder(a.client, token, 'sell', 'limit', 100, 12)).error).toBeNull();
    const offer = (c: typeof admin, price?: number) =>
      c.rpc('admin_offer_unsold', { p_token: token, ...(price === undefined ? {} : { p_price: price }) });
    expect((await offer(a.client)).error).not.toBeNull();
    expect((await offer(admin, 10.001)).error?.message).toBe(
      'The lowest bid must be between $0.01 and $1,000,000.00, in cents.',
    );
    const { data: opened, error } = await offer(admin);
    expect(error).toBeNull();
    expect(opened).toMatchObject({ supply: 700, reserve_price: 10.5 });
    expect((await offer(admin)).error?.message).toMatch(/^An offering of t\w+ is open already\.$/);
    // Orders wait; the resting one may still be cancelled.
    expect((await placeOrder(b.client, token, 'buy', 'market', 10)).error?.message).toMatch(
      /opens when its offering closes/,
    );
    const [order] = await backend.db.query<{ id: string }>(
      `select id from orders where token_id = $1 and status = 'open'`,
      [token],
    );
    expect((await a.client.rpc('cancel_order', { p_order: Number(order!.id) })).error).toBeNull();
    // Its cap is the settings' 2% (14 tokens); this test lifts it, as offeringToken does.
    expect((await bid(b, token, 11, 15)).error?.message).toBe(
      'One account may bid for at most 14 tokens in this offering.',
    );
    await backend.db.query('update offerings set account_cap = 700 where token_id = $1 and closed_at is null', [token]);
    expect((await bid(b, token, 11, 700)).error).toBeNull();
    await closeOffering(backend, token);
    const [second] = await backend.db.query<{ clearing_price: string; sold: string }>(
      'select clearing_price, sold::text from offerings where token_id = $1 order by id desc limit 1',
      [token],
    );
    expect(second).toEqual({ clearing_price: '11.00', sold: '700' });
    expect(await holding(backend, b.id, token)).toEqual({ amount: 700, reserved: 0 });
    expect((await offer(admin)).error?.message).toMatch(
      /^Nothing of t\w+ is left to offer: the issuance account holds none\.$/,
    );
    const [audit] = await backend.db.query<{ n: string }>(
      `select count(*) as n from audit_log where action = 'offering.open' and target = (select name from tokens where id = $1)`,
      [token],
    );
    expect(Number(audit!.n)).toBe(1);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('without a bid it closes with no price, and trading opens at the issue price', async () => {
    const token = await offeringToken(backend, { supply: 1000, price: 10 });
    await closeOffering(backend, token);
    const [row] = await backend.db.query<{ clearing_price: string | null; sold: string }>(
      'select clearing_price, sold::text from offerings where token_id = $1',
      [token],
    );
    expect(row).toEqual({ clearing_price: null, sold: '0' });
    const seller = await trader(backend, { token, tokens: 10 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 10, 10)).error).toBeNull();
  });

  it('closes once: a second call finds nothing due, and a bidder is mailed their allocation', async () => {
    const token = await offeringToken(backend, { supply: 100, price: 10, cap: 100 });
    const a = await trader(backend, { cash: 10_000 });
    expect((await bid(a, token, 10, 40)).error).toBeNull();
    await closeOffering(backend, token);
    const count = async () =>
      Number(
        (await backend.db.query<{ n: string }>('select count(*) as n from trades where token_id = $1', [token]))[0]!.n,
      );
    expect(await count()).toBe(1);
    await backend.db.query('select private.close_next_offering()');
    expect(await count()).toBe(1);
    const [mail] = await backend.db.query<{ subject: string; body: string }>(
      'select subject, body from private.account_mail where user_id = $1',
      [a.id],
    );
    expect(mail!.subject).toMatch(/^t\w+ offering: 40 tokens at \$10\.00$/);
    expect(mail!.body).toContain('Your bid for 40 at $10.00 received 40 tokens; you paid $400.00 plus the fee');
  });

  it('while its token is halted, bids are refused (a cancel still works) and the close waits for the resumption', async () => {
    const token = await offeringToken(backend, { supply: 100, price: 10, cap: 100 });
    const [a, b] = [await trader(backend, { cash: 10_000 }), await trader(backend, { cash: 10_000 })];
    expect((await bid(a, token, 10, 50)).error).toBeNull();
    expect((await bid(b, token, 10, 20)).error).toBeNull();
    await backend.db.query(`update tokens set halt_reason = 'News is pending.', halted_at = now() where id = $1`, [
      token,
    ]);
    expect((await bid(a, token, 11, 50)).error?.message).toMatch(
      /^Trading in t\w+ is halted: News is pending\. Cancelling a bid still works\.$/,
    );
    expect((await b.client.rpc('cancel_offering_bid', { p_token: token })).error).toBeNull();
    await backend.db.query(
      `update offerings set opens_at = now() - interval '1 day', closes_at = now() - interval '1 second' where token_id = $1`,
      [token],
    );
    await backend.db.query('select private.close_next_offering()');
    const open = async () =>
      (await backend.db.query('select 1 from offerings where token_id = $1 and closed_at is null', [token])).length;
    expect(await open()).toBe(1);
    await backend.db.query('update tokens set halt_reason = null, halted_at = null where id = $1', [token]);
    await closeOffering(backend, token);
    expect(await allocations(token)).toEqual({ [a.id]: 50 });
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it("a suspended account's bid is not allocated and its reservation is released", async () => {
    const token = await offeringToken(backend, { supply: 100, price: 10, cap: 100 });
    const [a, b] = [await trader(backend, { cash: 10_000 }), await trader(backend, { cash: 10_000 })];
    expect((await bid(a, token, 10, 80)).error).toBeNull();
    expect((await bid(b, token, 10, 80)).error).toBeNull();
    await backend.db.query(`update profiles set status = 'suspended' where id = $1`, [b.id]);
    await closeOffering(backend, token);
    expect(await allocations(token)).toEqual({ [a.id]: 80, [b.id]: 0 });
    expect(await cash(backend, b.id)).toEqual({ available: 10_000, reserved: 0 });
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('suspending an account cancels its bids at once: the reservation released, the demand without it', async () => {
    const token = await offeringToken(backend, { supply: 100, price: 10, cap: 100 });
    const [a, b] = [await trader(backend, { cash: 10_000 }), await trader(backend, { cash: 10_000 })];
    expect((await bid(a, token, 10, 80)).error).toBeNull();
    expect((await bid(b, token, 11, 80)).error).toBeNull();
    expect(await shown(a, token)).toMatchObject({ demand: 160, indicative_price: 10 });

    const { data, error } = await admin.rpc('admin_set_account_status', {
      p_user: b.id,
      p_status: 'suspended',
      p_reason: 'Bids from a stolen card',
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ status: 'suspended', bids_cancelled: 1 });
    expect(await cash(backend, b.id)).toEqual({ available: 10_000, reserved: 0 });
    expect(await allocations(token)).toEqual({ [a.id]: 0 });
    expect(await shown(a, token)).toMatchObject({ demand: 80 });
    const [audit] = await backend.db.query<{ after: { bids_cancelled: number } }>(
      `select after from audit_log where action = 'account.suspend' and target_user = $1`,
      [b.id],
    );
    expect(audit!.after.bids_cancelled).toBe(1);

    await closeOffering(backend, token);
    expect(await allocations(token)).toEqual({ [a.id]: 80 });
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
