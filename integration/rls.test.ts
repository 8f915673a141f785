import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, DEMO, client, newUser, signedIn } from './harness/clients';
import { invariantViolations } from './harness/market';

describe.each(ENGINES)('row-level security on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('an anonymous caller reads nothing', async () => {
    const anon = client(backend.url);
    for (const table of [
      'profiles',
      'tokens',
      'cash_accounts',
      'holdings',
      'orders',
      'trades',
      'market_tokens',
      'wallet_history',
    ]) {
      const { data, error } = await anon.from(table).select('*');
      expect({ table, data, status: error?.code }).toEqual({ table, data: null, status: '42501' });
    }
  });

  it("every policy reads the caller's id and role once per statement (in a sub-select), never once per row", async () => {
    const policies = await backend.db.query<{ policy: string; rule: string }>(
      `select schemaname || '.' || tablename || ': ' || policyname as policy,
              coalesce(qual, '') || ' ' || coalesce(with_check, '') as rule
       from pg_policies where schemaname in ('public', 'storage', 'realtime')`,
    );
    expect(policies.length).toBeGreaterThan(10);
    const perRow = policies.filter(({ rule }) =>
      /(auth\.uid|is_admin)\(\)/.test(rule.replace(/\( SELECT (auth\.uid|private\.is_admin)\(\) AS \w+\)/g, '')),
    );
    expect(perRow.map((p) => p.policy)).toEqual([]);
  });

  it('a user reads only their own private rows', async () => {
    const demo = await signedIn(backend.url, DEMO);
    const other = await newUser(backend.url, 'rls');
    const demoId = (await demo.auth.getUser()).data.user!.id;

    const cash = await other.client.from('cash_accounts').select('user_id, available');
    expect(cash.data).toEqual([{ user_id: other.id, available: 0 }]);
    expect((await other.client.from('cash_accounts').select('*').eq('user_id', demoId)).data).toEqual([]);
    expect((await other.client.from('holdings').select('*').eq('user_id', demoId)).data).toEqual([]);
    expect((await other.client.from('trades').select('*')).data).toEqual([]);
    expect((await other.client.from('wallet_transactions').select('*')).data).toEqual([]);
    expect((await other.client.from('orders').select('*').eq('user_id', demoId)).data).toEqual([]);

    // The demo user sees their own: the seeded wallet and trades.
    expect((await demo.from('cash_accounts').select('available').single()).data).toEqual({ available: 2450 });
    const { data: moves } = await demo.from('wallet_transactions').select('type, method, destination_id').order('id');
    const { data: banks } = await demo.from('payout_destinations').select('id, label, account_last4');
    expect(banks).toEqual([{ id: expect.any(String), label: 'Checking', account_last4: '0427' }]);
    expect(moves).toEqual([
      { type: 'deposit', method: 'Card •••• 4242', destination_id: null },
      { type: 'deposit', method: 'Card •••• 4242', destination_id: null },
      { type: 'withdrawal', method: 'Checking •••• 0427', destination_id: banks![0]!.id },
    ]);
    const { data: trades } = await demo.from('my_trades').select('type');
    expect(trades!.length).toBeGreaterThan(0);
    const { data: orders } = await demo.from('orders').select('user_id');
    expect(orders!.every((o) => o.user_id === demoId)).toBe(true);
  });

  it('a user edits their own profile text, never its role, status or another profile', async () => {
    const me = await newUser(backend.url, 'edit');
    const ok = await me.client.from('profiles').update({ bio: 'Hello' }).eq('id', me.id).select('bio').single();
    expect(ok.data).toEqual({ bio: 'Hello' });
    const role = await me.client.from('profiles').update({ role: 'admin' }).eq('id', me.id);
    expect(role.error?.code).toBe('42501');
    expect(role.status).toBe(403);
    const demo = await signedIn(backend.url, DEMO);
    const demoId = (await demo.auth.getUser()).data.user!.id;
    const foreign = await me.client.from('profiles').update({ bio: 'Hacked' }).eq('id', demoId).select();
    expect(foreign.data).toEqual([]);
    expect((await demo.from('profiles').select('bio').eq('id', demoId).single()).data!.bio).not.toBe('Hacked');
  });

  it('money and tokens cannot be written directly', async () => {
    const me = await newUser(backend.url, 'money');
    const cash = await me.client.from('cash_accounts').update({ available: 1_000_000 }).eq('user_id', me.id);
    expect(cash.error?.code).toBe('42501');
    const tokens = await me.client.from('holdings').insert({
      user_id: me.id,
      token_id: (await me.client.from('tokens').select('id').limit(1).single()).data!.id,
      amount: 5,
    });
    expect(tokens.error?.code).toBe('42501');
    const ledger = await me.client.rpc('settle_trade', {});
    expect(ledger.error?.code).toBe('PGRST202'); // private functions are not exposed at all
  });

  it('a watchlist row can only be added for oneself', async () => {
    const me = await newUser(backend.url, 'watch');
    const demo = await signedIn(backend.url, DEMO);
    const demoId = (await demo.auth.getUser()).data.user!.id;
    const token = (await me.client.from('tokens').select('id').limit(1).single()).data!.id;
    expect((await me.client.from('watchlist').insert({ user_id: me.id, token_id: token })).error).toBeNull();
    const forged = await me.client.from('watchlist').insert({ user_id: demoId, token_id: token });
    expect(forged.error?.message).toMatch(/row-level security/);
  });

  it('admin functions refuse a non-admin in the database and answer an admin', async () => {
    const demo = await signedIn(backend.url, DEMO);
    const refused = await demo.rpc('admin_dashboard_stats');
    expect(refused.error).toMatchObject({ code: '42501', message: 'Admin privileges required.' });
    expect(refused.status).toBe(403);
    const admin = await signedIn(backend.url, ADMIN);
    const { data, error } = await admin.rpc('admin_dashboard_stats');
    expect(error).toBeNull();
    expect(data).toMatchObject({ total_users: expect.any(Number), revenue_24h: expect.any(Number) });
    expect((data as { total_users: number }).total_users).toBeGreaterThanOrEqual(8);
  });
});

describe.each(ENGINES)('the seed on %s', (engine) => {
  it('is a consistent exchange: every invariant holds, nothing is dated in the future', async () => {
    const backend = await backendFor(engine)();
    try {
      expect(await invariantViolations(backend)).toEqual([]);
    } finally {
      await backend.close();
    }
  });
});
