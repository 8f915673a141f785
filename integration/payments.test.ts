import crypto from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { bankAccount, cash, trader } from './harness/market';

const CARD_OK = '4242 4242 4242 4242';
const CARD_DECLINED = '4000 0000 0000 0002';
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

  it('a deposit is pending, then confirmed by the provider and credited once, however often it is replayed', async () => {
    const t = await trader(backend);
    const k = key();
    const first = await deposit(t.client, 1000, CARD_OK, k);
    expect(first.error).toBeNull();
    const p = first.data as Payment;
    expect(p).toMatchObject({ status: 'pending', amount: 1000 });
    expect((await cash(backend, t.id)).available).toBe(0); // nothing before the provider confirms

    // A double click and a retry while pending, then a replay after it completed: one payment.
    const [again, twice] = await Promise.all([
      deposit(t.client, 1000, CARD_OK, k),
      deposit(t.client, 1000, CARD_OK, k),
    ]);
    expect((again.data as Payment).reference).toBe(p.reference);
    expect((twice.data as Payment).reference).toBe(p.reference);
    expect((await settled(backend, p.reference)).status).toBe('completed');
    const replay = await deposit(t.client, 1000, CARD_OK, k);
    expect(replay.data).toMatchObject({ reference: p.reference, status: 'completed', replayed: true });
    expect((await cash(backend, t.id)).available).toBe(1000);

    // The provider's confirmation replayed (a webhook delivered twice) credits nothing more.
    await backend.db.query('select public.settle_payment($1, true)', [p.reference]);
    expect((await cash(backend, t.id)).available).toBe(1000);

    // The same key for another amount is refused.
    const misuse = await deposit(t.client, 5, CARD_OK, k);
    expect(misuse.error?.message).toBe('This idempotency key was already used for a different request.');
  });

  it("the documented test card is declined with the provider's message, and nothing is credited", async () => {
    const t = await trader(backend);
    const { data } = await deposit(t.client, 250, CARD_DECLINED);
    expect(await settled(backend, (data as Payment).reference)).toEqual({
      status: 'failed',
      message: 'Your card was declined.',
    });
    expect((await cash(backend, t.id)).available).toBe(0);
    const { data: history } = await t.client.from('wallet_history').select('type, amount, status, message, balance');
    expect(history).toEqual([
      { type: 'Deposit', amount: 250, status: 'Failed', message: 'Your card was declined.', balance: 0 },
    ]);
  });

  it('refuses bad deposits with a clear message and changes nothing', async () => {
    const t = await trader(backend);
    const [settings] = await backend.db.query<{ deposit_min: string; deposit_max: string }>(
      'select deposit_min, deposit_max from exchange_settings',
    );
    // No amount, or none above zero: the message names the real minimum.
    const least = `Enter a deposit amount of at least $${Number(settings!.deposit_min).toFixed(2)}.`;
    const cases: [unknown, string, string][] = [
      [0, CARD_OK, least],
      [-5, CARD_OK, least],
      ['NaN', CARD_OK, least],
      [10.005, CARD_OK, 'A deposit amount has at most two decimals.'],
      [
        Number(settings!.deposit_min) - 1,
        CARD_OK,
        `The minimum deposit is $${Number(settings!.deposit_min).toFixed(2)}.`,
      ],
      [
        Number(settings!.deposit_max) + 1,
        CARD_OK,
        `The maximum deposit is $${Number(settings!.deposit_max).toLocaleString('en-US', { minimumFractionDigits: 2 })}.`,
      ],
      [100, '4242 4242 4242 4241', 'This card number is not valid: check the digits.'],
      [100, 'card', 'Enter a card number of 12 to 19 digits.'],
    ];
    for (const [amount, card, message] of cases) {
      const { error } = await deposit(t.client, amount, card);
      expect(error?.message).toBe(message);
    }
    expect((await deposit(t.client, 'abc')).error?.message).toMatch(/invalid input syntax for type numeric/);
    expect((await deposit(t.client, 100, CARD_OK, 'short')).error?.message).toBe(
      'Each request needs an idempotency key of 8 to 100 characters.',
    );
    const [{ n }] = (await backend.db.query<{ n: string }>(
      'select count(*) as n from wallet_transactions where user_id = $1',
      [t.id],
    )) as [{ n: string }];
    expect(Number(n)).toBe(0);
  });

  it('a withdrawal is held at once, cancellable while pending, never more than available, within the daily limit', async () => {
    const t = await trader(backend, { cash: 600 });
    const dest = await bankAccount(backend, t);
    const { data: shown } = await t.client.from('payout_destinations').select('label, account_last4');
    expect(shown).toEqual([{ label: 'Checking', account_last4: '5678' }]);

    const withdraw = (amount: number) =>
      t.client.rpc('create_withdrawal', { p_amount: amount, p_destination: dest, p_idempotency_key: key() });
    const w = (await withdraw(500)).data as Payment;
    expect(w.status).toBe('pending');
    expect(await cash(backend, t.id)).toMatchObject({ available: 100 });
    // Another withdrawal while the first holds the funds.
    expect((await withdraw(200)).error?.message).toBe('Insufficient funds: you have $100.00 available to withdraw.');
    // Cancelled while pending: the funds come back.
    expect((await t.client.rpc('cancel_withdrawal', { p_id: w.id })).data).toMatchObject({ status: 'cancelled' });
    expect(await cash(backend, t.id)).toMatchObject({ available: 600 });
    expect((await t.client.rpc('cancel_withdrawal', { p_id: w.id })).error?.message).toBe(
      'This withdrawal is cancelled and can no longer be cancelled.',
    );

    // Paid out after the hold.
    const paid = (await withdraw(100)).data as Payment;
    expect((await settled(backend, paid.reference)).status).toBe('completed');
    expect(await cash(backend, t.id)).toMatchObject({ available: 500 });
    const [row] = await backend.db.query<{ pending_withdrawal: string }>(
      'select pending_withdrawal from cash_accounts where user_id = $1',
      [t.id],
    );
    expect(Number(row!.pending_withdrawal)).toBe(0);

    // The daily limit counts what was withdrawn today.
    await backend.db.query('update exchange_settings set withdrawal_daily_limit = 300');
    try {
      expect((await withdraw(250)).error?.message).toBe(
        'This would exceed your daily withdrawal limit of $300.00: you can withdraw $200.00 more today.',
      );
    } finally {
      await backend.db.query('update exchange_settings set withdrawal_daily_limit = 5000');
    }
    // Someone else's destination is not one's own.
    const other = await trader(backend, { cash: 100 });
    const stolen = await other.client.rpc('create_withdrawal', {
      p_amount: 50,
      p_destination: dest,
      p_idempotency_key: key(),
    });
    expect(stolen.error?.message).toBe('Choose one of your saved accounts to withdraw to.');
  });
});
