import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, ANON_KEY, client, signedIn } from './harness/clients';
import { runDuePlans } from '../server/schedule';
import {
  bankAccount,
  closeOffering,
  freshToken,
  offeringToken,
  placeOrder,
  trader,
  type Trader,
} from './harness/market';

interface Notice {
  id: number;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  read_at: string | null;
}

/** The notification centre (notifications.sql): each event writes its notice exactly once. */
describe.each(ENGINES)('notifications on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const notices = async (c: SupabaseClient) =>
    ((await c.from('my_notifications').select('id, kind, title, body, link, read_at').order('id')).data ??
      []) as Notice[];
  const mails = async (t: Trader) =>
    (
      await backend.db.query<{ subject: string }>(
        'select subject from private.account_mail where user_id = $1 order by id',
        [t.id],
      )
    ).map((m) => m.subject);

  it('tells the maker of a fill, the person of the fee share and the alert owner, once each, and not the taker', async () => {
    const token = await freshToken(backend, 10_000, 10);
    const person = await trader(backend);
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [person.id, token]);
    const maker = await trader(backend, { token, tokens: 100 });
    const taker = await trader(backend, { cash: 1000 });
    expect(
      (await taker.client.rpc('set_price_alert', { p_token: token, p_kind: 'above', p_value: 10.2 })).error,
    ).toBeNull();
    expect((await placeOrder(maker.client, token, 'sell', 'limit', 10, 10.5)).error).toBeNull();
    expect((await placeOrder(taker.client, token, 'buy', 'market', 4)).error).toBeNull();

    expect(await notices(maker.client)).toEqual([
      expect.objectContaining({
        kind: 'fill',
        title: 'Order Partly Filled',
        body: expect.stringMatching(
          /^Your limit order to sell 10 .* tokens at \$10\.50: 4 sold so far, 6 still on the book\.$/,
        ),
        link: `/trading/${token}`,
        read_at: null,
      }),
    ]);
    expect(await notices(person.client)).toEqual([
      expect.objectContaining({
        kind: 'fee_share',
        title: 'Fee share credited',
        body: expect.stringMatching(/^1 trade in .* credited you \$0\.\d\d\.$/),
      }),
    ]);
    // The taker's panel told them of their order; their alert fired: one notice, mailed as alerts are by default.
    expect((await notices(taker.client)).map((n) => n.kind)).toEqual(['alert']);
    expect(await mails(taker)).toEqual([expect.stringMatching(/^Price alert: .* at \$10\.50$/)]);
    // Fills are told in the app only, by default: no mail to the maker.
    expect(await mails(maker)).toEqual([]);
    // Nobody reads another's notices.
    expect((await taker.client.from('notifications').select('id').eq('user_id', maker.id)).data).toEqual([]);
  });

  it('follows each person’s choice per kind, and keeps security notices on, in the app and by mail', async () => {
    const token = await freshToken(backend, 10_000, 10);
    const maker = await trader(backend, { token, tokens: 100 });
    const taker = await trader(backend, { cash: 1000 });
    const set = (kind: string, channel: string) =>
      maker.client.rpc('set_notification_preference', { p_kind: kind, p_channel: channel });
    expect((await set('fill', 'loud')).error?.message).toBe('Choose In the app, Also by mail or Off.');
    expect((await set('gossip', 'app')).error?.message).toMatch(/no kind of notice called "gossip"/);
    expect((await set('security', 'off')).error?.message).toMatch(/Security notices are always on/);

    expect((await set('fill', 'off')).error).toBeNull();
    await placeOrder(maker.client, token, 'sell', 'limit', 10, 10);
    await placeOrder(taker.client, token, 'buy', 'market', 2);
    expect(await notices(maker.client)).toEqual([]);

    expect((await set('fill', 'mail')).error).toBeNull();
    await placeOrder(taker.client, token, 'buy', 'market', 8);
    expect((await notices(maker.client)).map((n) => n.title)).toEqual(['Order Filled']);
    expect(await mails(maker)).toEqual(['Order Filled']);

    // A new bank account: a security notice, in the app and by mail, whatever the preferences.
    await bankAccount(backend, maker);
    const security = (await notices(maker.client)).filter((n) => n.kind === 'security');
    expect(security.map((n) => n.title)).toEqual(['A bank account was added to your RepX account']);
    expect(await mails(maker)).toContain('A bank account was added to your RepX account');
  });

  it('counts unread notices, marks one or all read, and refuses another’s', async () => {
    const t = await trader(backend);
    const other = await trader(backend);
    for (let i = 0; i < 3; i++)
      await backend.db.query(`select private.notify($1, 'reply', 'Hello ' || $2, 'body', '/dashboard')`, [t.id, i]);
    expect((await t.client.rpc('unread_notifications')).data).toBe(3);
    const [first] = await notices(t.client);
    expect((await other.client.rpc('mark_notifications_read', { p_id: first!.id })).error?.message).toMatch(
      /not yours/,
    );
    expect((await t.client.rpc('mark_notifications_read', { p_id: first!.id })).data).toBe(1);
    expect((await t.client.rpc('unread_notifications')).data).toBe(2);
    expect((await t.client.rpc('mark_notifications_read', {})).data).toBe(2);
    expect((await t.client.rpc('unread_notifications')).data).toBe(0);
  });

  it('tells replies, mentions, offerings, vesting, halts, API keys, Auto-Invest runs and new browsers once each', async () => {
    const admin = await signedIn(backend.url, ADMIN);
    const [a, b, c] = [await trader(backend), await trader(backend), await trader(backend, { cash: 5000 })];
    const [bName, cName] = await Promise.all(
      [b, c].map(
        async (t) =>
          (await backend.db.query<{ username: string }>('select username from profiles where id = $1', [t.id]))[0]!
            .username,
      ),
    );
    const token = await freshToken(backend);
    const root = (await b.client.rpc('create_post', { p_token: token, p_body: 'What do you think?' })).data as {
      id: number;
    };
    await a.client.rpc('create_post', { p_token: token, p_body: `Fair, @${bName} and @${cName}`, p_reply_to: root.id });
    expect((await notices(b.client)).map((n) => [n.kind, n.title])).toEqual([
      ['reply', expect.stringMatching(/replied to your post$/)],
    ]);
    expect((await notices(c.client)).map((n) => [n.kind, n.title])).toEqual([
      ['reply', expect.stringMatching(/mentioned you$/)],
    ]);

    // An offering's close tells each bidder once.
    const offered = await offeringToken(backend, { owner: a.id });
    await c.client.rpc('place_offering_bid', { p_token: offered, p_amount: 10, p_price: 10 });
    await closeOffering(backend, offered);
    expect((await notices(c.client)).filter((n) => n.kind === 'offering')).toHaveLength(1);

    // Vesting: the cliff, then the end; the minutes between say nothing.
    const vested = await freshToken(backend, 10_000, 10);
    await backend.db.query('select private.issue_tokens($1, $2, 1200)', [vested, a.id]);
    await backend.db.query(
      `insert into vesting_grants (token_id, user_id, total, starts_at, cliff_months, months)
       values ($1, $2, 1200, now() - interval '4 months', 3, 24)`,
      [vested, a.id],
    );
    await backend.db.query('update holdings set locked = 1200 where user_id = $1 and token_id = $2', [a.id, vested]);
    await backend.db.query('select private.release_vesting()');
    await backend.db.query('update holdings set locked = locked + 1 where user_id = $1 and token_id = $2', [
      a.id,
      vested,
    ]);
    await backend.db.query('select private.release_vesting()');
    expect((await notices(a.client)).filter((n) => n.kind === 'vesting').map((n) => n.body)).toEqual([
      expect.stringMatching(/have vested at the cliff/),
    ]);

    // A halt of the person's token, and an API key: once each.
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [b.id, token]);
    await admin.rpc('admin_set_token_halt', { p_token: token, p_halted: true, p_reason: 'News pending' });
    expect((await notices(b.client)).filter((n) => n.kind === 'token').map((n) => n.title)).toEqual([
      'Trading in your RepX token is halted',
    ]);
    await c.client.rpc('create_api_key', { p_name: 'bot', p_scopes: ['read'] });
    expect((await notices(c.client)).filter((n) => n.kind === 'security').map((n) => n.title)).toEqual([
      'A new API key on your RepX account',
    ]);

    // An Auto-Invest run, told once, linking to its screen.
    const runner = await trader(backend, { cash: 500 });
    expect(
      (await runner.client.rpc('create_invest_plan', { p_amount: 20, p_frequency: 'daily', p_token: offered })).error,
    ).toBeNull();
    await runDuePlans(backend.db);
    await runDuePlans(backend.db);
    expect((await notices(runner.client)).filter((n) => n.kind === 'auto_invest')).toEqual([
      expect.objectContaining({ title: expect.stringMatching(/^Auto-Invest (bought|skipped)/), link: '/auto-invest' }),
    ]);

    // A sign-in from a browser the account has not used: a security notice, once per browser.
    const email = (await backend.db.query<{ email: string }>('select email from auth.users where id = $1', [a.id]))[0]!
      .email;
    const firefox = () =>
      client(backend.url, ANON_KEY, {
        'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
      });
    for (let i = 0; i < 2; i++)
      expect((await firefox().auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    expect((await notices(a.client)).filter((n) => n.title === 'A new sign-in to your RepX account')).toHaveLength(1);
  });
});
