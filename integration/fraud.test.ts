import { adminSuite } from './harness/suites';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, client, signedIn } from './harness/clients';
import { freshToken, placeOrder, trader, type OrderArgs, type Trader } from './harness/market';

interface Alert {
  id: number;
  rule: string;
  severity: string;
  status: string;
  accounts: { id: string; username: string }[];
  token_id: string | null;
  summary: string;
  evidence: { trades?: number[]; orders?: number[] };
  updated_at: string;
}

describe.each(ENGINES)('fraud detection on %s', (engine) => {
  const suite = adminSuite(engine);

  const order = (t: Trader, ...args: OrderArgs) => placeOrder(t.client, ...args);
  /** `from` sells `amount` to `to` at `price`: a resting sell taken by a market buy. */
  const sell = async (from: Trader, to: Trader, token: string, amount: number, price: number) => {
    expect((await order(from, token, 'sell', 'limit', amount, price)).error).toBeNull();
    expect((await order(to, token, 'buy', 'market', amount)).error).toBeNull();
  };
  const scan = async (): Promise<Alert[]> => {
    expect((await suite.admin.rpc('admin_run_fraud_scan')).error).toBeNull();
    return (await suite.admin.rpc('admin_list_alerts', {})).data as Alert[];
  };
  const involving = (alerts: Alert[], rule: string, ...who: Trader[]) =>
    alerts.filter((a) => a.rule === rule && who.every((w) => a.accounts.some((x) => x.id === w.id)));

  /** A fresh token and `n` fresh accounts, each with $5,000 and 20 of its tokens. */
  const accounts = async (n: number): Promise<[string, ...Trader[]]> => {
    const token = await freshToken(suite.backend);
    return [
      token,
      ...(await Promise.all(Array.from({ length: n }, () => trader(suite.backend, { cash: 5000, token, tokens: 20 })))),
    ];
  };

  /** Two fresh accounts trading a fresh token back and forth, twice each way. */
  const washTrade = async () => {
    const token = await freshToken(suite.backend);
    const a = await trader(suite.backend, { cash: 5000, token, tokens: 50 });
    const b = await trader(suite.backend, { cash: 5000, token, tokens: 50 });
    for (let i = 0; i < 2; i++) {
      await sell(a, b, token, 5, 10);
      await sell(b, a, token, 5, 10);
    }
    return { token, a, b };
  };

  it('wash trading: the same two accounts trading a token back and forth', async () => {
    const { token, a, b } = await washTrade();
    const [alert] = involving(await scan(), 'wash_trading', a, b);
    expect(alert).toMatchObject({ token_id: token, status: 'open', severity: 'medium' });
    expect(alert!.evidence.trades).toHaveLength(4);
    // Scanning again refreshes the same alert rather than raising another.
    expect(involving(await scan(), 'wash_trading', a, b)).toHaveLength(1);
  });

  it('not wash trading: trades both ways that change who owns the tokens', async () => {
    const token = await freshToken(suite.backend);
    const a = await trader(suite.backend, { cash: 5000, token, tokens: 50 });
    const b = await trader(suite.backend, { cash: 5000, token, tokens: 50 });
    // b buys 40 of a's tokens and sells 10 back: twice each way, 30 tokens changed hands for good.
    for (let i = 0; i < 2; i++) {
      await sell(a, b, token, 20, 10);
      await sell(b, a, token, 5, 10);
    }
    expect(involving(await scan(), 'wash_trading', a, b)).toEqual([]);
    // Selling 30 more back leaves the pair where it began: wash trading after all.
    await sell(b, a, token, 30, 10);
    const [alert] = involving(await scan(), 'wash_trading', a, b);
    expect(alert!.evidence).toMatchObject({ net_tokens: 0, gross_tokens: 80 });
  });

  it('rings: tokens passing A -> B -> C -> A', async () => {
    const [token, a, b, c] = await accounts(3);
    await sell(a!, b!, token, 3, 10);
    await sell(b!, c!, token, 3, 10);
    await sell(c!, a!, token, 3, 10);
    const [ring] = involving(await scan(), 'ring', a!, b!, c!);
    expect(ring).toMatchObject({ token_id: token, severity: 'high' });
    expect(ring!.evidence.trades).toHaveLength(3);
  });

  it('rings: four or more accounts, one alert for the ring', async () => {
    const [token, a, b, c, d] = await accounts(4);
    await sell(a!, b!, token, 2, 10);
    await sell(b!, c!, token, 2, 10);
    await sell(c!, d!, token, 2, 10);
    await sell(d!, a!, token, 2, 10);
    const rings = involving(await scan(), 'ring', a!, b!, c!, d!);
    expect(rings).toHaveLength(1);
    expect(rings[0]!.accounts).toHaveLength(4);
    expect(rings[0]!.evidence.trades).toHaveLength(4);
    expect(rings[0]!.summary).toBe('The same tokens passed around a ring of 4 accounts and back (4 trades).');
  });

  it('not a ring: tokens that never come back, or accounts that trade in a cycle but not the same tokens', async () => {
    const [token, a, b, c, d] = await accounts(4);
    await sell(a!, b!, token, 3, 10);
    await sell(b!, c!, token, 3, 10);
    await sell(c!, d!, token, 3, 10); // passed on, never back
    await sell(d!, b!, token, 5, 10);
    await sell(b!, c!, token, 4, 10);
    await sell(c!, d!, token, 2, 10); // a cycle among b, c and d, in other lots each time
    const alerts = await scan();
    expect(alerts.filter((x) => x.rule === 'ring' && x.token_id === token)).toEqual([]);
  });

  it("rings: a ring and its reverse among the same three accounts are one alert with both ways' trades", async () => {
    const [token, a, b, c] = await accounts(3);
    for (const [from, to] of [
      [a, b],
      [b, c],
      [c, a],
      [a, c],
      [c, b],
      [b, a],
    ] as const)
      await sell(from!, to!, token, 1, 10);
    const rings = involving(await scan(), 'ring', a!, b!, c!);
    expect(rings).toHaveLength(1);
    expect(rings[0]!.evidence.trades).toHaveLength(6);
  });

  it('a scan that sees nothing new leaves an open alert as it was', async () => {
    const { a, b } = await washTrade();
    const [first] = involving(await scan(), 'wash_trading', a, b);
    const [second] = involving(await scan(), 'wash_trading', a, b);
    expect(second).toEqual(first);
  });

  it('a dismissed alert stays dismissed while the pattern shows nothing new; a new trade raises it again', async () => {
    const { token, a, b } = await washTrade();
    const [alert] = involving(await scan(), 'wash_trading', a, b);
    const review = { p_id: alert!.id, p_status: 'dismissed', p_note: 'Two market makers.' };
    expect((await suite.admin.rpc('admin_review_alert', review)).error).toBeNull();
    const again = involving(await scan(), 'wash_trading', a, b);
    expect(again.map((x) => [x.id, x.status])).toEqual([[alert!.id, 'dismissed']]);

    await sell(a, b, token, 5, 10);
    const raised = involving(await scan(), 'wash_trading', a, b).filter((x) => x.status === 'open');
    expect(raised).toHaveLength(1);
    expect(raised[0]!.id).not.toBe(alert!.id);
    expect(raised[0]!.evidence.trades).toHaveLength(5);
  });

  it('spoofing: large orders cancelled within seconds, repeatedly', async () => {
    const token = await freshToken(suite.backend);
    const s = await trader(suite.backend, { cash: 20_000 });
    for (let i = 0; i < 3; i++) {
      const { data } = await order(s, token, 'buy', 'limit', 200, 6 + i); // $1,200+ each, far below the touch
      expect(
        (await s.client.rpc('cancel_order', { p_order: (data as { order_id: number }).order_id })).error,
      ).toBeNull();
    }
    const [spoof] = involving(await scan(), 'spoofing', s);
    expect(spoof).toMatchObject({ token_id: token });
    expect(spoof!.evidence.orders).toHaveLength(3);
  });

  it('a high cancel-to-fill ratio', async () => {
    const token = await freshToken(suite.backend);
    const s = await trader(suite.backend, { cash: 1000 });
    for (let i = 0; i < 20; i++) {
      const { data } = await order(s, token, 'buy', 'limit', 1, Number((1 + i / 100).toFixed(2)));
      await s.client.rpc('cancel_order', { p_order: (data as { order_id: number }).order_id });
    }
    expect(involving(await scan(), 'cancel_ratio', s)).toHaveLength(1);
  });

  it("concentration: one account buying most of a token's volume", async () => {
    const token = await freshToken(suite.backend);
    const seller = await trader(suite.backend, { token, tokens: 500 });
    const whale = await trader(suite.backend, { cash: 20_000 });
    const minnow = await trader(suite.backend, { cash: 1000 });
    for (let i = 0; i < 5; i++) await sell(seller, whale, token, 30, 10);
    await sell(seller, minnow, token, 2, 10);
    const alerts = await scan();
    expect(involving(alerts, 'concentration', whale)).toHaveLength(1);
    expect(involving(alerts, 'concentration', minnow)).toHaveLength(0);
  });

  it('a new account trading big', async () => {
    const token = await freshToken(suite.backend);
    const seller = await trader(suite.backend, { token, tokens: 1000 });
    const fresh = await trader(suite.backend, { cash: 10_000 });
    await sell(seller, fresh, token, 600, 10);
    expect(involving(await scan(), 'new_account', fresh)).toHaveLength(1);
  });

  it('an alert moves open -> reviewing -> confirmed, suspending the accounts; audited; admins only', async () => {
    const { a, b } = await washTrade();
    const [alert] = involving(await scan(), 'wash_trading', a, b);
    for (const c of [a.client, client(suite.backend.url)]) {
      expect((await c.rpc('admin_review_alert', { p_id: alert!.id, p_status: 'dismissed' })).error).not.toBeNull();
      expect((await c.rpc('admin_list_alerts', {})).error).not.toBeNull();
      expect((await c.rpc('admin_run_fraud_scan')).error).not.toBeNull();
    }
    expect((await suite.admin.rpc('admin_review_alert', { p_id: alert!.id, p_status: 'reviewing' })).error).toBeNull();
    const { data: stats } = await suite.admin.rpc('admin_dashboard_stats');
    const open = (stats as { fraud_alerts: number }).fraud_alerts;
    const { data, error } = await suite.admin.rpc('admin_review_alert', {
      p_id: alert!.id,
      p_status: 'confirmed',
      p_note: 'Same person, two accounts.',
      p_suspend: true,
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ status: 'confirmed', suspended: 2 });
    const { data: after } = await suite.admin.rpc('admin_dashboard_stats');
    expect((after as { fraud_alerts: number }).fraud_alerts).toBe(open); // a reviewed alert was no longer open
    const statuses = await suite.backend.db.query<{ status: string }>(
      'select status from profiles where id = any($1::uuid[])',
      [[a.id, b.id]],
    );
    expect(statuses.map((s) => s.status)).toEqual(['suspended', 'suspended']);
    expect(
      (await suite.admin.rpc('admin_review_alert', { p_id: alert!.id, p_status: 'dismissed' })).error?.message,
    ).toBe('This alert was already confirmed.');
    const { data: log } = await suite.admin.rpc('admin_audit_log', { p_action: 'alert.confirmed' });
    expect(log).toContainEqual(expect.objectContaining({ reason: 'Same person, two accounts.' }));
  });

  it('a fresh install raises no alert from the sample data', async () => {
    const fresh = await backendFor(engine)();
    try {
      const c = await signedIn(fresh.url, ADMIN);
      expect((await c.rpc('admin_run_fraud_scan')).data).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
