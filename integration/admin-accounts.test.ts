import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, ANON_KEY, client, signedIn } from './harness/clients';
import { book, cash, freshToken, invariantViolations, placeOrder, trader } from './harness/market';

describe.each(ENGINES)('the admin acts on accounts on %s', (engine) => {
  let backend: Backend;
  let admin: SupabaseClient;
  let adminId: string;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    admin = await signedIn(backend.url, ADMIN);
    adminId = (await admin.auth.getUser()).data.user!.id;
  });
  afterAll(() => backend.close());

  it('suspension ends every session at once, cancels open orders, refuses sign-in; reinstating lifts it; all audited', async () => {
    const token = await freshToken(backend);
    const user = await trader(backend, { cash: 1000, token, tokens: 50 });
    const email = (await user.client.auth.getUser()).data.user!.email!;
    const secondTab = await signedIn(backend.url, { email, password: 'password-123' });
    await placeOrder(user.client, token, 'buy', 'limit', 10, 5);
    await placeOrder(user.client, token, 'sell', 'limit', 20, 12);
    expect(await book(backend, token)).toHaveLength(2);

    expect(
      (await admin.rpc('admin_set_account_status', { p_user: user.id, p_status: 'suspended' })).error?.message,
    ).toBe('Give a reason of 3 to 500 characters for the suspension.');
    const { data, error } = await admin.rpc('admin_set_account_status', {
      p_user: user.id,
      p_status: 'suspended',
      p_reason: 'Wash trading.',
    });
    expect(error).toBeNull();
    expect(data).toEqual({ status: 'suspended', orders_cancelled: 2, bids_cancelled: 0, sessions_ended: 2 });

    // Its tokens issued before the suspension are refused on their next request, in both tabs.
    for (const c of [user.client, secondTab]) {
      const read = await c.from('cash_accounts').select('available');
      expect(read.status).toBe(401);
      expect(read.error?.message).toBe('Your session has ended. Please sign in again.');
      expect((await c.auth.getUser()).error).not.toBeNull();
    }
    expect(await book(backend, token)).toEqual([]);
    expect(await cash(backend, user.id)).toEqual({ available: 1000, reserved: 0 });
    expect(
      (await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error?.message,
    ).toBe('User is banned');

    expect((await admin.rpc('admin_set_account_status', { p_user: user.id, p_status: 'active' })).error).toBeNull();
    expect((await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();

    const { data: log } = await admin.rpc('admin_audit_log', { p_target: user.id });
    expect((log as { action: string; reason: string | null }[]).map((l) => [l.action, l.reason])).toEqual([
      ['account.reinstate', null],
      ['account.suspend', 'Wash trading.'],
    ]);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('signs an account out everywhere without suspending it: orders stand, sign-in works, audited', async () => {
    const token = await freshToken(backend);
    const user = await trader(backend, { cash: 1000 });
    const email = (await user.client.auth.getUser()).data.user!.email!;
    const laptop = client(backend.url, ANON_KEY, {
      'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
    });
    expect((await laptop.auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    await placeOrder(user.client, token, 'buy', 'limit', 10, 5);
    // The details show where the account is signed in.
    const { data: before } = await admin.rpc('admin_account_details', { p_user: user.id });
    const sessions = (before as { sessions: { user_agent: string | null; ip: string | null }[] }).sessions;
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.ip)).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(sessions.some((s) => s.user_agent?.includes('Firefox/140.0'))).toBe(true);

    expect((await admin.rpc('admin_end_sessions', { p_user: user.id, p_reason: '' })).error?.message).toBe(
      'Give a reason of 3 to 500 characters for signing the account out.',
    );
    const { data, error } = await admin.rpc('admin_end_sessions', {
      p_user: user.id,
      p_reason: 'Reported a stolen phone.',
    });
    expect([error, data]).toEqual([null, 2]);
    for (const c of [user.client, laptop]) {
      expect((await c.from('cash_accounts').select('available')).status).toBe(401);
    }
    // Not a suspension: the order stands and the owner signs in again.
    expect(await book(backend, token)).toHaveLength(1);
    expect((await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    const { data: log } = await admin.rpc('admin_audit_log', { p_target: user.id });
    expect((log as { action: string; reason: string | null }[]).map((l) => [l.action, l.reason])).toEqual([
      ['account.sign_out', 'Reported a stolen phone.'],
    ]);
    expect((await admin.rpc('admin_end_sessions', { p_user: adminId, p_reason: 'Myself.' })).error?.message).toBe(
      'Admins cannot act on their own account.',
    );
  });

  it('verifies and unverifies the badge of the account and its token', async () => {
    const user = await trader(backend);
    expect((await admin.rpc('admin_set_verified', { p_user: user.id, p_verified: true })).error).toBeNull();
    const { data } = await user.client.from('profiles').select('verified').eq('id', user.id).single();
    expect(data).toEqual({ verified: true });
    expect((await admin.rpc('admin_set_verified', { p_user: user.id, p_verified: false })).error).toBeNull();
  });

  it("no action on the admin's own account, and none for users or anon", async () => {
    expect(
      (await admin.rpc('admin_set_account_status', { p_user: adminId, p_status: 'suspended', p_reason: 'Myself.' }))
        .error?.message,
    ).toBe('Admins cannot act on their own account.');
    expect((await admin.rpc('admin_set_verified', { p_user: adminId, p_verified: false })).error?.message).toBe(
      'Admins cannot act on their own account.',
    );
    const user = await trader(backend);
    const victim = await trader(backend);
    for (const c of [user.client, client(backend.url)]) {
      for (const [fn, args] of [
        ['admin_set_account_status', { p_user: victim.id, p_status: 'suspended', p_reason: 'Because.' }],
        ['admin_set_verified', { p_user: victim.id, p_verified: true }],
        ['admin_end_sessions', { p_user: victim.id, p_reason: 'Because.' }],
        ['admin_list_users', {}],
        ['admin_audit_log', {}],
      ] as const) {
        const { error, status } = await c.rpc(fn, args);
        expect(error).not.toBeNull();
        expect([401, 403]).toContain(status);
      }
    }
  });
});
