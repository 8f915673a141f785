import crypto from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { client } from './harness/clients';
import { bankAccount, cash, invariantViolations, trader } from './harness/market';
import { randomOrders } from './harness/load';
import { lastCodeFor } from './harness/mail';

const CARD_OK = '4242 4242 4242 4242';
const key = () => crypto.randomUUID();

interface Payment {
  id: number;
  reference: string;
  status: string;
  amount: number;
  message: string | null;
  replayed?: boolean;
}

async function statusOf(backend: Backend, reference: string): Promise<{ status: string; message: string | null }> {
  const [row] = await backend.db.query<{ status: string; message: string | null }>(
    'select status, message from wallet_transactions where reference = $1',
    [reference],
  );
  return row!;
}

const settled = (backend: Backend, reference: string) =>
  eventually(async () => {
    const row = await statusOf(backend, reference);
    return ['completed', 'failed'].includes(row.status) ? row : undefined;
  });

describe.each(ENGINES)('money in and out on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, { payments: { delayMs: 50, payoutAfterMs: 1500 } })();
  });
  afterAll(() => backend.close());

  const deposit = (c: SupabaseClient, amount: unknown, card = CARD_OK, idempotencyKey: string = key()) =>
    c.rpc('create_deposit', { p_amount: amount, p_card: card, p_idempotency_key: idempotencyKey });

  it('money leaves only after a recent sign-in: a session signed in over 15 minutes ago must sign in again', async () => {
    const t = await trader(backend, { cash: 300 });
    const dest = await bankAccount(backend, t, 'Checking', '11112222');
    const withdraw = () =>
      t.client.rpc('create_withdrawal', { p_amount: 100, p_destination: dest, p_idempotency_key: key() });
    // The session's sign-in ages; its refreshed token carries the sign-in's time, not the refresh's.
    await backend.db.query(`update auth.sessions set created_at = now() - interval '16 minutes' where user_id = $1`, [
      t.id,
    ]);
    expect((await t.client.auth.refreshSession()).error).toBeNull();
    const stale = await withdraw();
    expect([stale.error?.message, stale.error?.hint]).toEqual([
      'For your security, confirm your password to withdraw.',
      'reauthenticate',
    ]);
    expect(await cash(backend, t.id)).toMatchObject({ available: 300 });
    // Signing in again is the proof.
    const email = (await t.client.auth.getSession()).data.session!.user.email!;
    expect((await t.client.auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    expect((await withdraw()).error).toBeNull();
    expect(await cash(backend, t.id)).toMatchObject({ available: 200 });
  });

  it('withdrawals wait a day after the password or the email changes; deposits and trading do not', async () => {
    const t = await trader(backend, { cash: 300 });
    const email = (await t.client.auth.getSession()).data.session!.user.email!;
    const dest = await bankAccount(backend, t, 'Checking', '33334444');
    const withdraw = () =>
      t.client.rpc('create_withdrawal', { p_amount: 100, p_destination: dest, p_idempotency_key: key() });
    const held =
      /^For your security, withdrawals open 24 hours after a password or email change: from [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC\.$/;
    expect((await t.client.rpc('my_withdrawal_hold')).data).toBeNull();
    // Metadata alone is no credential change.
    expect((await t.client.auth.updateUser({ data: { theme: 'dark' } })).error).toBeNull();
    expect((await withdraw()).error).toBeNull();

    expect(
      (await t.client.auth.updateUser({ password: 'password-456', current_password: 'password-123' })).error,
    ).toBeNull();
    const refused = await withdraw();
    expect(refused.error?.message).toMatch(held);
    // The browser can read until when, to say so before anything is typed.
    const hold = (await t.client.rpc('my_withdrawal_hold')).data as string;
    expect(Date.parse(hold) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(await cash(backend, t.id)).toMatchObject({ available: 200 });
    expect((await deposit(t.client, 50, CARD_OK)).error).toBeNull();
    // A day on, money may leave again.
    const age = () =>
      backend.db.query(
        `update private.credential_changes set changed_at = now() - interval '25 hours' where user_id = $1`,
        [t.id],
      );
    await age();
    expect((await t.client.rpc('my_withdrawal_hold')).data).toBeNull();
    expect((await withdraw()).error).toBeNull();

    // A new email, once confirmed by its code, holds them again.
    await t.client.auth.updateUser({ email: `moved-${email}`, current_password: 'password-456' });
    expect((await withdraw()).error).toBeNull(); // asked for, not yet moved
    const code = (await lastCodeFor(backend.db, `moved-${email}`))!;
    expect(
      (await t.client.auth.verifyOtp({ email: `moved-${email}`, token: code, type: 'email_change' })).error,
    ).toBeNull();
    expect((await withdraw()).error?.message).toMatch(held);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('a payout the bank rejects gives the funds back', async () => {
    const t = await trader(backend, { cash: 300 });
    const dest = await bankAccount(backend, t, 'Old account', '9990002');
    const w = (
      await t.client.rpc('create_withdrawal', { p_amount: 120, p_destination: dest, p_idempotency_key: key() })
    ).data as Payment;
    expect(await settled(backend, w.reference)).toEqual({
      status: 'failed',
      message: 'The receiving bank rejected the transfer: the account is closed.',
    });
    expect(await cash(backend, t.id)).toMatchObject({ available: 300 });
  });

  it("the provider's side is not open to users or to anon", async () => {
    const t = await trader(backend);
    const { data } = await deposit(t.client, 100, CARD_OK);
    for (const c of [t.client, client(backend.url)]) {
      expect(
        (await c.rpc('settle_payment', { p_reference: (data as Payment).reference, p_succeeded: true })).error,
      ).not.toBeNull();
      expect(
        (await c.rpc('claim_payment', { p_payout_after: '0 seconds', p_lease: '0 seconds' })).error,
      ).not.toBeNull();
    }
    expect(
      (await client(backend.url).rpc('create_deposit', { p_amount: 100, p_card: CARD_OK, p_idempotency_key: key() }))
        .error,
    ).not.toBeNull();
  });

  it('the history lists every movement of cash, and its running balance ends at the balance', async () => {
    const buyer = await trader(backend);
    const seller = await trader(backend);
    for (const t of [buyer, seller]) {
      const { data } = await deposit(t.client, 2000);
      await settled(backend, (data as Payment).reference);
    }
    const [{ id: token }] = (await backend.db.query<{ id: string }>(
      `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
       values ('History', 'history' || floor(random() * 1e9)::text, 'Test', 50, 1000, 10) returning id`,
    )) as [{ id: string }];
    await backend.db.query('select private.issue_tokens($1, $2, 300)', [token, seller.id]);
    await backend.db.query('select private.issue_tokens($1, $2, 300)', [token, buyer.id]);
    // Random trading both ways (seeded), with cancels, as the load tests place it.
    const runs = await Promise.all(
      [buyer, seller].map((t, i) => randomOrders(t.client, [token], { count: 60, seed: 4200 + i })),
    );
    expect(runs.flatMap((r) => r.failures)).toEqual([]);
    for (const t of [buyer, seller]) {
      const { data: history } = await t.client.from('wallet_history').select('type, effect');
      const sum = Math.round((history as { effect: number }[]).reduce((s, r) => s + r.effect * 100, 0)) / 100;
      const c = await cash(backend, t.id);
      expect(sum).toBeCloseTo(c.available + c.reserved, 2);
      const types = new Set((history as { type: string }[]).map((r) => r.type));
      expect(types).toEqual(new Set(['Deposit', 'Buy', 'Sell', 'Trade Fee']));
    }
    const { data: last } = await buyer.client
      .from('wallet_history')
      .select('balance')
      .order('position', { ascending: false })
      .limit(1)
      .single();
    const c = await cash(backend, buyer.id);
    expect((last as { balance: number }).balance).toBeCloseTo(c.available + c.reserved, 2);
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
