import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { client } from './harness/clients';
import { freshToken, invariantViolations, placeOrder, trader } from './harness/market';
import { confirmSignUp } from './harness/mail';

describe.each(ENGINES)('system settings on %s', (engine) => {
  const suite = adminSuite(engine);

  it('a fee change applies to the next trade at once, and is audited', async () => {
    const token = await freshToken(suite.backend, 10_000, 33.33);
    const seller = await trader(suite.backend, { token, tokens: 100 });
    const buyer = await trader(suite.backend, { cash: 5000 });
    expect(
      (await suite.admin.rpc('admin_update_settings', { p_changes: { fee_bps: 150 }, p_reason: 'Promotion.' })).error,
    ).toBeNull();
    await placeOrder(seller.client, token, 'sell', 'limit', 10, 33.33);
    const { data } = await placeOrder(buyer.client, token, 'buy', 'market', 10);
    // value $333.30; 1.5% = $4.9995, rounded half up to $5.00
    expect(data).toMatchObject({ value: 333.3, fee: 5, total: 338.3 });
    const { data: setting } = await buyer.client.from('exchange_settings').select('fee_bps').single();
    expect(setting).toEqual({ fee_bps: 150 });
    const { data: log } = await suite.admin.rpc('admin_audit_log', { p_action: 'settings.update' });
    expect(log).toContainEqual(
      // The maker fee was the same single fee: it follows.
      expect.objectContaining({
        before: { fee_bps: 200, maker_fee_bps: 200 },
        after: { fee_bps: 150, maker_fee_bps: 150 },
        reason: 'Promotion.',
      }),
    );
    await suite.admin.rpc('admin_update_settings', { p_changes: { fee_bps: 200 } });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('a trading halt refuses orders with its reason while cancelling still works; limits on size and open orders', async () => {
    const token = await freshToken(suite.backend);
    const t = await trader(suite.backend, { cash: 5000, token, tokens: 100 });
    const { data: resting } = await placeOrder(t.client, token, 'sell', 'limit', 5, 20);
    // A halt says why; a reason without a halt is refused; neither changes anything.
    const settings = (p_changes: Record<string, unknown>) => suite.admin.rpc('admin_update_settings', { p_changes });
    expect((await settings({ trading_halted: true })).error?.message).toBe(
      'Say why trading is halted: traders are shown the reason.',
    );
    expect((await settings({ halt_reason: 'Maintenance' })).error?.message).toBe(
      'A halt reason goes with a halt: turn the halt on, or clear the reason.',
    );
    expect(await suite.backend.db.query('select trading_halted, halt_reason from exchange_settings')).toEqual([
      { trading_halted: false, halt_reason: null },
    ]);
    await suite.admin.rpc('admin_update_settings', { p_changes: { trading_halted: true, halt_reason: 'Maintenance' } });
    try {
      const halted = await placeOrder(t.client, token, 'buy', 'limit', 1, 5);
      expect(halted.error?.message).toBe('Trading is halted: Maintenance. Cancelling open orders still works.');
      expect(
        (await t.client.rpc('cancel_order', { p_order: (resting as { order_id: number }).order_id })).error,
      ).toBeNull();
    } finally {
      await suite.admin.rpc('admin_update_settings', { p_changes: { trading_halted: false, halt_reason: null } });
    }
    await suite.admin.rpc('admin_update_settings', { p_changes: { min_order_amount: 5, max_open_orders: 2 } });
    try {
      expect((await placeOrder(t.client, token, 'buy', 'limit', 4, 5)).error?.message).toBe(
        'The minimum order is 5 tokens.',
      );
      for (let i = 0; i < 2; i++) {
        expect((await placeOrder(t.client, token, 'buy', 'limit', 5, 5 + i)).error).toBeNull();
      }
      expect((await placeOrder(t.client, token, 'buy', 'limit', 5, 8)).error?.message).toBe(
        'You have 2 open orders, the most allowed. Cancel one before placing another limit or stop order.',
      );
    } finally {
      await suite.admin.rpc('admin_update_settings', { p_changes: { min_order_amount: 1, max_open_orders: 200 } });
    }
  });

  it('refuses unknown settings, bad values, and anyone but an admin', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ fee: 1 }, 'fee is not a setting.'],
      [{ fee_bps: 5000 }, 'The trading fee must be between 0 and 1,000 basis points (0% to 10%).'],
      [
        { fee_bps: 'lots' },
        'A setting has a value of the wrong kind: numbers for amounts and limits, true or false for the halt and for two-step verification.',
      ],
      [{ deposit_min: 100, deposit_max: 50 }, 'Deposits need a minimum above $0.00 and a maximum at least as large.'],
      [{ fee_bps: null }, 'A setting cannot be empty.'],
      [{}, 'Say which settings to change.'],
    ];
    for (const [changes, message] of cases) {
      expect((await suite.admin.rpc('admin_update_settings', { p_changes: changes })).error?.message).toBe(message);
    }
    const user = await trader(suite.backend);
    for (const c of [user.client, client(suite.backend.url)]) {
      expect((await c.rpc('admin_update_settings', { p_changes: { fee_bps: 0 } })).error).not.toBeNull();
    }
    const { data } = await suite.admin.from('exchange_settings').select('fee_bps').single();
    expect(data).toEqual({ fee_bps: 200 });
  });
});

describe.each(ENGINES)('revenue reports on %s', (engine) => {
  const suite = adminSuite(engine);

  it("by day, week and token, each summing to the period's fees less the creators' share, to the cent; admins only", async () => {
    const fees = async (days: number | null) =>
      Number(
        (
          await suite.backend.db.query<{ s: string }>(
            `select coalesce(sum(buyer_fee + seller_fee - creator_share), 0) as s from trades
        where $1::int is null or created_at >= date_trunc('day', now()) - make_interval(days => $1::int - 1)`,
            [days],
          )
        )[0]!.s,
      );
    for (const group of ['day', 'week', 'token']) {
      for (const days of [7, 30, null]) {
        const { data, error } = await suite.admin.rpc('admin_revenue', { p_group: group, p_days: days });
        expect(error).toBeNull();
        const rows = data as { fees: number; creator_share: number; revenue: number }[];
        const cents = rows.reduce((s, r) => s + Math.round(r.revenue * 100), 0);
        expect(cents).toBe(Math.round((await fees(days)) * 100));
        for (const r of rows)
          expect(Math.round(r.fees * 100) - Math.round(r.creator_share * 100)).toBe(Math.round(r.revenue * 100));
      }
    }
    const { data: days } = await suite.admin.rpc('admin_revenue', { p_group: 'day', p_days: 7 });
    expect(days).toHaveLength(7); // days without trades are there, at zero
    expect((await suite.admin.rpc('admin_revenue', { p_group: 'month' })).error?.message).toBe(
      'Group revenue by day, week or token.',
    );
    const user = await trader(suite.backend);
    for (const c of [user.client, client(suite.backend.url)])
      expect((await c.rpc('admin_revenue', {})).error).not.toBeNull();
  });
});

describe.each(ENGINES)('the accounts table on %s', (engine) => {
  const suite = adminSuite(engine);

  interface Row {
    id: string;
    username: string;
    status: string;
    total: number;
    trades_30d: number;
  }
  const list = async (args: Record<string, unknown>) => {
    const { data, error } = await suite.admin.rpc('admin_list_users', args);
    expect(error).toBeNull();
    return data as Row[];
  };

  it('searches, filters, sorts and pages in the database, with the total count', async () => {
    const prefix = `pg${Date.now().toString(36)}`;
    const users = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        suite.backend.db.query<{ id: string }>(
          `insert into auth.users (email, raw_user_meta_data) values ($1, $2) returning id`,
          [
            `${prefix}${String(i).padStart(2, '0')}@test.repx.dev`,
            { username: `${prefix}_${String(i).padStart(2, '0')}` },
          ],
        ),
      ),
    );
    const first = await list({ p_search: prefix, p_sort: 'username', p_desc: false, p_limit: 5 });
    expect(first.map((r) => r.username)).toEqual([0, 1, 2, 3, 4].map((i) => `${prefix}_0${i}`));
    expect(first[0]!.total).toBe(12);
    const last = await list({ p_search: prefix, p_sort: 'username', p_desc: false, p_limit: 5, p_offset: 10 });
    expect(last.map((r) => r.username)).toEqual([`${prefix}_10`, `${prefix}_11`]);
    expect((await list({ p_search: prefix.toUpperCase(), p_limit: 100 })).length).toBe(12); // case-insensitive
    expect(await list({ p_search: '%', p_limit: 100 })).toEqual([]); // a wildcard typed is a character, not a pattern

    await suite.admin.rpc('admin_set_account_status', {
      p_user: users[3]![0]!.id,
      p_status: 'suspended',
      p_reason: 'Testing filters.',
    });
    expect((await list({ p_search: prefix, p_filter: 'suspended' })).map((r) => r.username)).toEqual([`${prefix}_03`]);
    expect((await suite.admin.rpc('admin_list_users', { p_sort: 'trades' })).error?.message).toBe(
      'Sort by joined, username, name, last_sign_in or status.',
    );
  });

  it('marks a sign-up waiting for its code, and counts only confirmed accounts as users', async () => {
    const stats = async () => (await suite.admin.rpc('admin_dashboard_stats')).data as Record<string, number>;
    const before = await stats();
    const email = `waiting${Date.now()}@test.repx.dev`;
    const username = email.split('@')[0]!;
    const c = client(suite.backend.url);
    expect(
      (await c.auth.signUp({ email, password: 'password-123', options: { data: { username } } })).error,
    ).toBeNull();
    const [waiting] = (await suite.admin.rpc('admin_list_users', { p_search: username })).data as (Row & {
      confirmed: boolean;
    })[];
    expect(waiting).toMatchObject({ username, confirmed: false, status: 'active' });
    expect(await stats()).toMatchObject({ total_users: before.total_users, active_users: before.active_users });
    await confirmSignUp(suite.backend.db, c, email);
    const [confirmed] = (await suite.admin.rpc('admin_list_users', { p_search: username })).data as {
      confirmed: boolean;
    }[];
    expect(confirmed!.confirmed).toBe(true);
    expect(await stats()).toMatchObject({ total_users: before.total_users + 1, active_users: before.active_users + 1 });
  });

  it('Details opens one account: balances, holdings, orders and stops, trades, payments, sessions and activity', async () => {
    const token = await freshToken(suite.backend);
    const t = await trader(suite.backend, { cash: 500, token, tokens: 10 });
    await placeOrder(t.client, token, 'sell', 'limit', 4, 12);
    await t.client.rpc('place_order', {
      p_token: token,
      p_side: 'sell',
      p_type: 'market',
      p_amount: 2,
      p_stop_price: 9,
    });
    await suite.admin.rpc('admin_set_verified', { p_user: t.id, p_verified: true });
    const { data, error } = await suite.admin.rpc('admin_account_details', { p_user: t.id });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      cash: { available: 500, reserved: 0, pending_withdrawal: 0 },
      holdings: [{ token_id: token, amount: 10, reserved: 6 }],
      open_orders: [
        { side: 'sell', price: null, stop_price: 9, amount: 2 },
        { side: 'sell', price: 12, stop_price: null, amount: 4 },
      ],
      payments: [{ type: 'deposit', amount: 500, status: 'completed' }],
      activity: [{ action: 'account.verify', actor: 'repx_admin' }],
    });
    expect((data as { sessions: unknown[] }).sessions).toHaveLength(1);
    expect((await t.client.rpc('admin_account_details', { p_user: t.id })).error).not.toBeNull();
  });
});
