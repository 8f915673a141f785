import crypto from 'node:crypto';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ADMIN, client, signedIn } from './harness/clients';
import { mailsTo } from './harness/mail';
import { bankAccount, cash, trader } from './harness/market';

const key = () => crypto.randomUUID();
const UTC_TIME = String.raw`[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC`;

describe.each(ENGINES)('saved bank accounts on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const emailOf = async (id: string) =>
    (await backend.db.query<{ email: string }>('select email from auth.users where id = $1', [id]))[0]!.email;

  it('a new account receives withdrawals a day after it is added; its owner is mailed at once, and at each withdrawal', async () => {
    const t = await trader(backend, { cash: 300 });
    const { data: dest, error } = await t.client.rpc('add_payout_destination', {
      p_label: 'Checking',
      p_account_number: '0001 2345-6789',
    });
    expect(error).toBeNull();
    const [saved] = (await t.client.from('payout_destinations').select('label, account_last4, usable_from')).data!;
    expect(saved).toMatchObject({ label: 'Checking', account_last4: '6789' });
    expect(Date.parse(saved!.usable_from as string) - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    const withdraw = () =>
      t.client.rpc('create_withdrawal', { p_amount: 100, p_destination: dest, p_idempotency_key: key() });
    const refused = await withdraw();
    expect(refused.error?.message).toMatch(
      new RegExp(
        `^For your security, a new bank account receives withdrawals 24 hours after it is added: Checking •••• 6789 from ${UTC_TIME}\\.$`,
      ),
    );
    expect(await cash(backend, t.id)).toMatchObject({ available: 300 });

    // The owner hears of it at once (the relay takes each message once); no user or visitor can take it.
    expect((await t.client.rpc('take_account_mail')).error).not.toBeNull();
    expect((await client(backend.url).rpc('take_account_mail')).error).not.toBeNull();
    const email = await emailOf(t.id);
    const [mail] = await eventually(async () => {
      const mails = await mailsTo(backend.db, email);
      return mails.length ? mails : undefined;
    });
    expect(mail!.subject).toBe('A bank account was added to your RepX account');
    expect(mail!.body).toMatch(
      new RegExp(`^The bank account Checking •••• 6789 was added to your RepX account\\. .* from ${UTC_TIME}\\.\\n`),
    );
    expect(mail!.body).toContain('If it was not you, reset your password now');

    // Nor can the user shorten the wait.
    await t.client.from('payout_destinations').update({ usable_from: new Date().toISOString() }).eq('id', dest);
    expect((await withdraw()).error?.message).toMatch(/^For your security, a new bank account/);

    // A day on, it works.
    await backend.db.query(`update payout_destinations set usable_from = now() - interval '1 second' where id = $1`, [
      dest,
    ]);
    expect((await withdraw()).error).toBeNull();
    expect(await cash(backend, t.id)).toMatchObject({ available: 200 });
    // Each withdrawal is mailed too, with what to do if it was not the owner.
    const mails = await eventually(async () => {
      const all = await mailsTo(backend.db, email);
      return all.length === 2 ? all : undefined;
    });
    expect(mails[1]).toEqual({
      subject: 'A withdrawal was requested from your RepX account',
      body:
        'A withdrawal of $100.00 to Checking •••• 6789 was requested from your RepX account.\n' +
        'If it was not you, cancel it in your Wallet while it is pending, then reset your password with Forgot password? on the sign-in page.\n\n' +
        // Signed with the app's address, [auth] site_url of supabase/config.toml.
        'RepX · http://localhost:3000',
    });
    // Sent mail is kept a week.
    await backend.db.query(`update private.account_mail set sent_at = now() - interval '8 days' where user_id = $1`, [
      t.id,
    ]);
    await backend.db.query('select private.prune()');
    const kept = await backend.db.query('select 1 from private.account_mail where user_id = $1', [t.id]);
    expect(kept).toEqual([]);
  });

  it('an account can be removed by its owner only; a removed account receives nothing', async () => {
    const t = await trader(backend, { cash: 300 });
    const other = await trader(backend);
    const dest = await bankAccount(backend, t, 'Savings', '99998888');

    const stranger = await other.client.rpc('remove_payout_destination', { p_id: dest });
    expect(stranger.error?.message).toBe('This account is not one of your saved accounts.');
    expect((await t.client.rpc('remove_payout_destination', { p_id: dest })).error).toBeNull();
    expect((await t.client.rpc('remove_payout_destination', { p_id: dest })).error?.message).toBe(
      'This account is not one of your saved accounts.',
    );
    const live = await t.client.from('payout_destinations').select('id').is('removed_at', null);
    expect(live.data).toEqual([]);
    const refused = await t.client.rpc('create_withdrawal', {
      p_amount: 100,
      p_destination: dest,
      p_idempotency_key: key(),
    });
    expect(refused.error?.message).toBe('Choose one of your saved accounts to withdraw to.');
    expect(await cash(backend, t.id)).toMatchObject({ available: 300 });
    // The admin's Details keep it, removed, with when it was added.
    const admin = await signedIn(backend.url, ADMIN);
    const { data: details } = await admin.rpc('admin_account_details', { p_user: t.id });
    expect((details as { bank_accounts: unknown[] }).bank_accounts).toEqual([
      expect.objectContaining({
        id: dest,
        label: 'Savings',
        account_last4: '8888',
        removed_at: expect.any(String),
        usable_from: expect.any(String),
      }),
    ]);
    // Not open to anyone signed out.
    const signedOut = await client(backend.url).rpc('remove_payout_destination', { p_id: dest });
    expect(signedOut.error).not.toBeNull();
  });

  it('five saved accounts at most, and five added a day', async () => {
    const t = await trader(backend);
    const add = (i: number) =>
      t.client.rpc('add_payout_destination', { p_label: `Account ${i}`, p_account_number: `1000000${i}` });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await add(i)).data as string);
    expect((await add(5)).error?.message).toBe('You can save up to 5 accounts. Remove one to add another.');
    await t.client.rpc('remove_payout_destination', { p_id: ids[0] });
    expect((await add(6)).error?.message).toBe('You can add up to 5 accounts a day. Try again tomorrow.');
    const [{ n }] = (await backend.db.query<{ n: number }>(
      'select count(*)::int as n from payout_destinations where user_id = $1',
      [t.id],
    )) as [{ n: number }];
    expect(n).toBe(5);
  });

  it('the wait is an exchange setting the admin changes, from none to a week, audited', async () => {
    const admin = await signedIn(backend.url, ADMIN);
    const set = (hours: unknown) =>
      admin.rpc('admin_update_settings', { p_changes: { new_bank_account_hold_hours: hours }, p_reason: 'test' });
    expect((await set(169)).error?.message).toBe('A new bank account waits between 0 and 168 hours (a week).');
    expect((await set(0)).error).toBeNull();
    try {
      const t = await trader(backend, { cash: 100 });
      const { data: dest } = await t.client.rpc('add_payout_destination', {
        p_label: 'Now',
        p_account_number: '55556666',
      });
      const w = await t.client.rpc('create_withdrawal', {
        p_amount: 50,
        p_destination: dest,
        p_idempotency_key: key(),
      });
      expect(w.error).toBeNull();
      // A user reads the setting (the Withdraw dialog says it) but cannot change it.
      expect((await t.client.from('exchange_settings').select('new_bank_account_hold_hours').single()).data).toEqual({
        new_bank_account_hold_hours: 0,
      });
      expect(
        (await t.client.rpc('admin_update_settings', { p_changes: { new_bank_account_hold_hours: 24 } })).error,
      ).not.toBeNull();
    } finally {
      expect((await set(24)).error).toBeNull();
    }
    const [audited] = await backend.db.query<{ before: unknown; after: unknown }>(
      `select before, after from public.audit_log where action = 'settings.update' order by id desc limit 1`,
    );
    expect(audited).toEqual({ before: { new_bank_account_hold_hours: 0 }, after: { new_bank_account_hold_hours: 24 } });
  });
});
