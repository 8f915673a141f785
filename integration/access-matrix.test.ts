import crypto from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ADMIN, client, signedIn } from './harness/clients';
import { freshToken, offeringToken, placeOrder, trader, type Trader } from './harness/market';
import { runDuePlans } from '../server/schedule';

/**
 * What each exposed relation lets a signed-in user read. The test reads the catalog, so a new
 * table or view that is not classified here fails it until someone decides who may see it.
 */
const EVERYONE_SIGNED_IN = [
  'notification_kinds',
  'holders_rooms',
  // Those a post's room and moderation let the reader see (discussion.test.ts checks which).
  'posts',
  'profiles',
  'tokens',
  'market_tokens',
  'market_summary',
  'token_categories',
  'order_book',
  'recent_trades',
  'reputation_history',
  'reputation_scores',
  'achievements',
  'exchange_settings',
  'categories',
  'candles',
  'index_members',
  'index_levels',
  'index_basket',
  'vesting_grants',
  'token_vesting',
  'offerings',
  'offering_book',
  'volatility_auctions',
  'volatility_auction_book',
  'social_history',
];
/** Own rows only, by these columns (any of them naming the reader). */
const OWN_ROWS: Record<string, string[]> = {
  cash_accounts: ['user_id'],
  holdings: ['user_id'],
  orders: ['user_id'],
  wallet_transactions: ['user_id'],
  watchlist: ['user_id'],
  payout_destinations: ['user_id'],
  token_applications: ['user_id'],
  trades: ['buyer_id', 'seller_id', 'proceeds_to'],
  price_alerts: ['user_id'],
  invest_plans: ['user_id'],
  invest_runs: ['user_id'],
  offering_bids: ['user_id'],
  social_accounts: ['user_id'],
  notifications: ['user_id'],
  notification_preferences: ['user_id'],
};
/** Own rows through a parent's: each row's key names a row of the parent the reader reads as their own. */
const OWN_THROUGH: Record<string, [column: string, parent: string]> = {
  invest_run_buys: ['run_id', 'invest_runs'],
  social_evidence: ['account_id', 'social_accounts'],
};
/** Views over the reader's own rows (security_invoker), with no owner column to check. */
const OWN_VIEWS = [
  'my_trades',
  'wallet_history',
  'my_price_alerts',
  'my_invest_plans',
  'my_invest_runs',
  'my_notifications',
];
const ADMIN_ONLY = ['audit_log', 'fraud_alerts'];
/** The only direct writes a user may make; everything else goes through the database's functions. */
const USER_WRITES: Record<string, string[]> = { watchlist: ['insert', 'delete'], profiles: ['update'] };

describe.each(ENGINES)('the access-control matrix from the catalog on %s', (engine) => {
  let backend: Backend;
  let me: Trader;
  let other: Trader;
  let admin: SupabaseClient;
  let anon: SupabaseClient;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    const token = await freshToken(backend);
    me = await trader(backend, { cash: 1000, token, tokens: 10 });
    other = await trader(backend, { cash: 1000, token, tokens: 10 });
    const offered = await offeringToken(backend);
    // Both have orders, trades, payments, a watchlist, a saved account, an application, a price
    // alert, an Auto-Invest plan that has run, a bid in an offering and a connected account.
    for (const [a, b] of [
      [me, other],
      [other, me],
    ] as const) {
      await placeOrder(a.client, token, 'sell', 'limit', 2, 10);
      await placeOrder(b.client, token, 'buy', 'market', 1);
      await a.client.from('watchlist').insert({ user_id: a.id, token_id: token });
      await a.client.rpc('add_payout_destination', { p_label: 'Checking', p_account_number: '12345678' });
      await a.client.rpc('apply_for_token', { p_display_name: 'Someone', p_category: 'Designer' });
      await a.client.rpc('set_price_alert', { p_token: token, p_kind: 'above', p_value: 50 });
      await a.client.rpc('create_invest_plan', { p_amount: 20, p_frequency: 'daily', p_token: token });
      await a.client.rpc('place_offering_bid', { p_token: offered, p_price: 10, p_amount: 5 });
      await a.client.rpc('set_notification_preference', { p_kind: 'fill', p_channel: 'mail' });
    }
    await runDuePlans(backend.db);
    // And a connected x account, read and analysed by the server's social worker.
    for (const t of [me, other]) {
      await t.client.rpc('start_social_connection', { p_platform: 'x', p_handle: `matrix_${t.id.slice(0, 8)}` });
      await t.client.rpc('check_social_connection', { p_platform: 'x' });
    }
    await eventually(
      async () =>
        (await backend.db.query(`select 1 from social_accounts where status <> 'connected'`)).length ? undefined : true,
      20_000,
    );
    admin = await signedIn(backend.url, ADMIN);
    anon = client(backend.url);
  });
  afterAll(() => backend.close());

  it('classifies every exposed table and view, and each role reads exactly what it should', async () => {
    const relations = (
      await backend.db.query<{ name: string }>(
        `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'v', 'm') order by 1`,
      )
    ).map((r) => r.name);
    const known = new Set([
      ...EVERYONE_SIGNED_IN,
      ...Object.keys(OWN_ROWS),
      ...Object.keys(OWN_THROUGH),
      ...OWN_VIEWS,
      ...ADMIN_ONLY,
    ]);
    expect(relations.filter((r) => !known.has(r))).toEqual([]);

    for (const rel of relations) {
      const asAnon = await anon.from(rel).select('*').limit(5);
      expect({ rel, anon: asAnon.status }).toEqual({ rel, anon: 401 });
      const asMe = await me.client.from(rel).select('*').limit(500);
      expect({ rel, error: asMe.error?.message }).toEqual({ rel, error: undefined });
      const rows = asMe.data as Record<string, unknown>[];
      if (OWN_ROWS[rel]) {
        expect({ rel, foreign: rows.filter((r) => !OWN_ROWS[rel]!.some((c) => r[c] === me.id)).length }).toEqual({
          rel,
          foreign: 0,
        });
        expect({ rel, some: rows.length > 0 }).toEqual({ rel, some: true });
        const asAdmin = await admin.from(rel).select('*').in(OWN_ROWS[rel]![0]!, [me.id, other.id]);
        // A person's watchlist and notices are theirs alone: no admin screen reads them.
        if (!['watchlist', 'notifications', 'notification_preferences'].includes(rel))
          expect({ rel, adminSeesBoth: (asAdmin.data ?? []).length > rows.length - 1 }).toEqual({
            rel,
            adminSeesBoth: true,
          });
      }
      if (OWN_THROUGH[rel]) {
        const [column, parent] = OWN_THROUGH[rel];
        const mine = new Set(
          ((await me.client.from(parent).select('id')).data ?? []).map((p: { id: unknown }) => p.id),
        );
        expect({ rel, some: rows.length > 0, foreign: rows.filter((r) => !mine.has(r[column])).length }).toEqual({
          rel,
          some: true,
          foreign: 0,
        });
      }
      if (ADMIN_ONLY.includes(rel)) {
        expect({ rel, rows: rows.length }).toEqual({ rel, rows: 0 });
        expect({ rel, admin: (await admin.from(rel).select('*').limit(1)).error }).toEqual({ rel, admin: null });
      }
    }
  });

  it('refuses every direct write but the few a user may make, on every table', async () => {
    const tables = (
      await backend.db.query<{ name: string }>(
        `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r' order by 1`,
      )
    ).map((r) => r.name);
    const nobody = crypto.randomUUID();
    const counts = async () =>
      Promise.all(
        tables.map(async (t) =>
          Number((await backend.db.query<{ n: string }>(`select count(*) as n from ${t}`))[0]!.n),
        ),
      );
    const before = await counts();
    const refused = (status: number) => status >= 400 && status < 500;
    for (const table of tables) {
      for (const c of [anon, me.client]) {
        const allowed = c === me.client ? (USER_WRITES[table] ?? []) : [];
        const ins = await c.from(table).insert({});
        if (!allowed.includes('insert'))
          expect({ table, insert: refused(ins.status) }).toEqual({ table, insert: true });
        const upd = await c.from(table).update({ created_at: new Date().toISOString() }).eq('id', nobody);
        if (!allowed.includes('update'))
          expect({ table, update: refused(upd.status) }).toEqual({ table, update: true });
        const del = await c.from(table).delete().eq('id', nobody);
        if (!allowed.includes('delete'))
          expect({ table, delete: refused(del.status) }).toEqual({ table, delete: true });
      }
      // A plausible row of the user's own is refused too (a 4xx, never a 5xx).
      if (!USER_WRITES[table]?.includes('insert')) {
        const row = await me.client.from(table).insert({ user_id: me.id });
        expect({ table, refused: refused(row.status) }).toEqual({ table, refused: true });
      }
    }
    expect(await counts()).toEqual(before);
    // The writes a user may make touch only their own rows and allowed columns.
    expect((await me.client.from('profiles').update({ role: 'admin' }).eq('id', me.id)).status).toBe(403);
    const foreign = await me.client.from('profiles').update({ bio: 'hacked' }).eq('id', other.id).select();
    expect(foreign.data).toEqual([]);
    expect(
      (await me.client.from('watchlist').insert({ user_id: other.id, token_id: crypto.randomUUID() })).status,
    ).toBe(403);
  });

  it('lets anon execute no function, and a user only those the product calls', async () => {
    const fns = await backend.db.query<{ name: string; anon: boolean; user: boolean }>(
      `select p.proname as name, has_function_privilege('anon', p.oid, 'execute') as anon, has_function_privilege('authenticated', p.oid, 'execute') as user
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' order by 1`,
    );
    expect(fns.filter((f) => f.anon).map((f) => f.name)).toEqual([]);
    // Only the payment provider's side and the mail relay's are kept from users; every other
    // function checks its caller itself.
    expect(
      fns
        .filter((f) => !f.user)
        .map((f) => f.name)
        .sort(),
    ).toEqual(['claim_payment', 'settle_payment', 'take_account_mail']);
  });
});
