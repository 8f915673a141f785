import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, ANON_KEY, keyClient, signedIn, subscribed } from './harness/clients';
import { bankAccount, freshToken, makeKey, placeOrder, trader, type Trader } from './harness/market';

jest.setTimeout(90_000);

/**
 * What a key may call: the functions that place, edit and cancel orders and alerts need the trade
 * scope; the functions that only the person may call refuse every key. Read from the catalog: a new
 * function that acts fails this until someone decides which it is.
 */
const TRADE = [
  'place_order',
  'place_orders',
  'place_oco',
  'replace_order',
  'cancel_order',
  'cancel_orders',
  'cancel_all_orders',
  'cancel_all_after',
  'set_price_alert',
  'delete_price_alert',
  'place_offering_bid',
  'cancel_offering_bid',
];
/** Functions that act but only read, or only for the caller's own screen: any key may call them. */
const READS = [
  'candles',
  'price_history',
  'my_positions',
  'my_pnl',
  'my_realized_lots',
  'my_first_steps',
  'my_portfolio_history',
  'my_position_returns',
  'my_sessions',
  'quote_order',
  'index_method',
  'list_open_orders',
];

describe.each(ENGINES)('API keys on %s', (engine) => {
  let backend: Backend;
  let token: string;
  let me: Trader;
  let readKey: { id: string; key: string };
  let tradeKey: { id: string; key: string };
  beforeAll(async () => {
    backend = await backendFor(engine)();
    token = await freshToken(backend);
    me = await trader(backend, { cash: 1_000, token, tokens: 50 });
    readKey = await makeKey(me, ['read']);
    tradeKey = await makeKey(me, ['read', 'trade']);
  });
  afterAll(() => backend.close());

  it('is shown once, kept as a hash, listed by its first characters, mailed and audited', async () => {
    expect(tradeKey.key).toMatch(/^repx_[A-Za-z0-9_-]{40,}$/);
    const stored = await backend.db.query<{ key_hash: Buffer; prefix: string }>(
      'select key_hash, prefix from private.api_keys where id = $1',
      [tradeKey.id],
    );
    expect(stored[0]!.prefix).toBe(tradeKey.key.slice(0, 12));
    expect(JSON.stringify(stored)).not.toContain(tradeKey.key.slice(12));
    const listed = await me.client.rpc('list_api_keys');
    expect(listed.error).toBeNull();
    const mine = (listed.data as { id: string; scopes: string[]; prefix: string; status: string }[]).find(
      (k) => k.id === tradeKey.id,
    );
    expect(mine).toMatchObject({ scopes: ['read', 'trade'], prefix: tradeKey.key.slice(0, 12), status: 'active' });
    expect(JSON.stringify(listed.data)).not.toContain(tradeKey.key);
    const mail = await backend.db.query<{ subject: string }>(
      `select subject from private.account_mail where user_id = $1 and subject like '%API key%'`,
      [me.id],
    );
    expect(mail.length).toBeGreaterThanOrEqual(2);
    const audit = await backend.db.query(`select 1 from audit_log where action = 'api_key.create' and target = $1`, [
      tradeKey.id,
    ]);
    expect(audit).toHaveLength(1);
  });

  it('refuses to make a key without a recent sign-in, with bad scopes or addresses', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ p_name: 'x', p_scopes: ['admin'] }, /scopes are read, or read and trade/],
      [{ p_name: ' ', p_scopes: ['read'] }, /Name the key/],
      [{ p_name: 'x', p_scopes: ['read'], p_allowed_ips: ['not an ip'] }, /IP address or a network/],
      [{ p_name: 'x', p_scopes: ['read'], p_expires_at: new Date(Date.now() - 1000).toISOString() }, /expires between/],
    ];
    for (const [args, words] of cases) {
      const r = await me.client.rpc('create_api_key', args);
      expect(r.error?.message).toMatch(words);
    }
    // A session signed in 16 minutes ago (its refreshed token keeps the sign-in's time) is asked
    // for the password again, as a withdrawal is.
    const stale = await trader(backend);
    await backend.db.query(`update auth.sessions set created_at = now() - interval '16 minutes' where user_id = $1`, [
      stale.id,
    ]);
    expect((await stale.client.auth.refreshSession()).error).toBeNull();
    const r = await stale.client.rpc('create_api_key', { p_name: 'late', p_scopes: ['read'] });
    expect([r.error?.message, r.error?.hint]).toEqual([
      'For your security, confirm your password to create an API key.',
      'reauthenticate',
    ]);
    const none = await backend.db.query('select 1 from private.api_keys where user_id = $1', [stale.id]);
    expect(none).toEqual([]);
  });

  it('reads what its owner reads, and trades only with the trade scope', async () => {
    const reader = keyClient(backend.url, readKey.key);
    const orders = await reader.from('orders').select('id, user_id');
    expect(orders.error).toBeNull();
    const positions = await reader.rpc('my_positions');
    expect(positions.error).toBeNull();
    expect((positions.data as { token_id: string }[]).map((p) => p.token_id)).toContain(token);
    const refused = await placeOrder(reader, token, 'sell', 'limit', 1, 30);
    expect(refused.error).toMatchObject({ hint: 'api_key_scope' });
    expect(refused.error!.message).toBe(
      'This API key may only read. Placing, editing and cancelling orders and alerts needs a key with the trade scope.',
    );
    const trading = keyClient(backend.url, tradeKey.key);
    const placed = await placeOrder(trading, token, 'sell', 'limit', 1, 30);
    expect(placed.error).toBeNull();
    const id = (placed.data as { order_id: number }).order_id;
    const [row] = await backend.db.query<{ user_id: string }>('select user_id from orders where id = $1', [id]);
    expect(row!.user_id).toBe(me.id);
    expect((await trading.rpc('cancel_order', { p_order: id })).error).toBeNull();
  });

  it('never moves money, changes the account or acts as an admin, and says so', async () => {
    const bank = await bankAccount(backend, me);
    const trading = keyClient(backend.url, tradeKey.key);
    const refusals = [
      await trading.rpc('create_withdrawal', { p_amount: 10, p_destination: bank, p_idempotency_key: 'k1' }),
      await trading.rpc('create_deposit', { p_amount: 10, p_card: '4242424242424242', p_idempotency_key: 'k2' }),
      await trading.rpc('add_payout_destination', { p_label: 'Other', p_account_number: '87654321' }),
      await trading.rpc('remove_payout_destination', { p_id: bank }),
      await trading.rpc('create_api_key', { p_name: 'child', p_scopes: ['read'] }),
      await trading.rpc('revoke_api_key', { p_id: readKey.id }),
      await trading.from('profiles').update({ bio: 'owned' }).eq('id', me.id),
      await trading.from('watchlist').insert({ user_id: me.id, token_id: token }),
    ];
    for (const r of refusals) {
      expect(r.error?.message).toMatch(/^An API key cannot .+\. Sign in to RepX to do it\.$/);
      expect(r.error?.hint).toBe('api_key_refused');
    }
    // Passwords, email and two-step verification belong to the auth server: refused there in words.
    const auth = await fetch(`${backend.url}/auth/v1/user`, {
      method: 'PUT',
      headers: { apikey: ANON_KEY, Authorization: `Bearer ${tradeKey.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ password: 'a-new-password-1' }),
    });
    expect(auth.status).toBe(403);
    expect(((await auth.json()) as { msg: string }).msg).toMatch(/An API key cannot change a password/);
    // An admin's key is a trader's key, never an admin's.
    const admin = await signedIn(backend.url, ADMIN);
    const adminKey = (await admin.rpc('create_api_key', { p_name: 'ops', p_scopes: ['read', 'trade'] })).data as {
      key: string;
    };
    const asKey = keyClient(backend.url, adminKey.key);
    const stats = await asKey.rpc('admin_dashboard_stats');
    expect(stats.error?.message).toBe('An API key cannot make an admin call. Sign in to RepX to do it.');
    const audit = await asKey.from('audit_log').select('id');
    expect(audit.data).toEqual([]);
  });

  it('classifies every function that acts: trade scope, reads, or the person only', async () => {
    const fns = await backend.db.query<{ name: string; args: string[] | null }>(
      `select p.proname as name, p.proargnames as args
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'public' and p.provolatile = 'v'
          and has_function_privilege('authenticated', p.oid, 'execute') order by 1`,
    );
    const reader = keyClient(backend.url, readKey.key);
    const trading = keyClient(backend.url, tradeKey.key);
    for (const { name, args } of fns) {
      const nulls = Object.fromEntries((args ?? []).filter((a) => a.startsWith('p_')).map((a) => [a, null]));
      if (TRADE.includes(name)) {
        const r = await reader.rpc(name, nulls);
        expect({ name, hint: r.error?.hint }).toEqual({ name, hint: 'api_key_scope' });
      } else if (READS.includes(name)) {
        const r = await reader.rpc(name, nulls);
        expect({ name, hint: r.error?.hint }).not.toEqual({ name, hint: expect.stringMatching(/^api_key/) });
      } else {
        const r = await trading.rpc(name, nulls);
        expect({ name, hint: r.error?.hint }).toEqual({ name, hint: 'api_key_refused' });
      }
    }
  });

  it('is refused in words once revoked, expired, or used from an address it does not allow', async () => {
    const owner = await trader(backend, { cash: 100 });
    const k = await makeKey(owner, ['read', 'trade']);
    const bot = keyClient(backend.url, k.key);
    expect((await bot.from('orders').select('id')).error).toBeNull();
    // Revoked: refused at once, though the server saw the key a moment ago.
    expect((await owner.client.rpc('revoke_api_key', { p_id: k.id })).error).toBeNull();
    const gone = await bot.from('orders').select('id');
    expect(gone.status).toBe(401);
    expect(gone.error?.message).toMatch(/revoked/);
    const mail = await backend.db.query(
      `select 1 from private.account_mail where user_id = $1 and subject like '%was revoked%'`,
      [owner.id],
    );
    expect(mail).toHaveLength(1);

    const later = await makeKey(owner, ['read'], { p_expires_at: new Date(Date.now() + 2 * 3600_000).toISOString() });
    await backend.db.query(`update private.api_keys set expires_at = now() - interval '1 second' where id = $1`, [
      later.id,
    ]);
    const expired = await keyClient(backend.url, later.key).from('orders').select('id');
    expect(expired.status).toBe(401);
    expect(expired.error?.message).toMatch(/expired/);

    const fenced = await makeKey(owner, ['read'], { p_allowed_ips: ['203.0.113.7', '2001:db8::/32'] });
    const outside = await keyClient(backend.url, fenced.key).from('orders').select('id');
    expect(outside.status).toBe(401);
    expect(outside.error?.message).toBe('This API key may not be used from 127.0.0.1.');
    const inside = await makeKey(owner, ['read'], { p_allowed_ips: ['127.0.0.0/8'] });
    expect((await keyClient(backend.url, inside.key).from('orders').select('id')).error).toBeNull();

    const made = await fetch(`${backend.url}/rest/v1/orders`, {
      headers: { apikey: ANON_KEY, Authorization: 'Bearer repx_not-a-key' },
    });
    expect(made.status).toBe(401);
    expect(((await made.json()) as { message: string }).message).toBe('This API key is not valid.');
  });

  it('joins the feed over Realtime, and an admin sees and revokes a key with a reason', async () => {
    const owner = await trader(backend, { cash: 100 });
    const k = await makeKey(owner, ['read']);
    const bot = keyClient(backend.url, k.key);
    await bot.realtime.setAuth();
    const heard: unknown[] = [];
    const channel = bot
      .channel(`book:${token}`, { config: { private: true } })
      .on('broadcast', { event: '*' }, (m) => heard.push(m.payload));
    await subscribed(channel);
    await placeOrder(me.client, token, 'sell', 'limit', 2, 41);
    // Earlier tests' orders on this book may still be on their way: wait for the one placed here.
    const at41 = (m: unknown) => (m as { asks?: { price: number }[] }).asks?.some((a) => a.price === 41);
    const deadline = Date.now() + 10_000;
    while (!heard.some(at41) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(heard.find(at41)).toMatchObject({
      asks: expect.arrayContaining([{ price: 41, amount: expect.any(Number) }]),
    });

    const admin = await signedIn(backend.url, ADMIN);
    const details = await admin.rpc('admin_account_details', { p_user: owner.id });
    expect((details.data as { api_keys: { id: string }[] }).api_keys.map((x) => x.id)).toEqual([k.id]);
    const noReason = await admin.rpc('admin_revoke_api_key', { p_id: k.id, p_reason: '' });
    expect(noReason.error?.message).toMatch(/reason of 3 to 500 characters/);
    const done = await admin.rpc('admin_revoke_api_key', { p_id: k.id, p_reason: 'Leaked in a public repository' });
    expect(done.data).toMatchObject({ status: 'revoked' });
    const log = await backend.db.query<{ reason: string }>(
      `select reason from audit_log where action = 'api_key.revoke' and target = $1`,
      [k.id],
    );
    expect(log).toEqual([{ reason: 'Leaked in a public repository' }]);
    await bot.removeAllChannels();
  });
});
