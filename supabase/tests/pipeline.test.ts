import type { Backend } from '../server/index';
import { callerStatement, type RequestIdentity } from '../server/db/caller';
import { ENGINES, backendFor, eventually } from '../harness/backends';
import { DEMO, identityOf, signedIn } from '../harness/clients';
import { freshToken, trader } from '../harness/market';

const REQUEST = { method: 'POST', path: '/rest/v1/rpc/probe', headers: { 'x-probe': 'yes' }, cookies: {} };

/** A request is one round trip: the caller's statement and the call, sent together, one transaction. */
describe.each(ENGINES)('one round trip per request (%s)', (engine) => {
  let backend: Backend;
  let demo: RequestIdentity;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    demo = await identityOf(await signedIn(backend.url, DEMO));
  });
  afterAll(() => backend.close());

  it("runs every statement as the caller, and leaves the connection as the server's own", async () => {
    const [, [seen]] = await backend.db.pipeline([
      callerStatement(demo, REQUEST),
      {
        text: `select auth.uid()::text as uid, current_user as role, current_setting('request.headers')::json ->> 'x-probe' as header,
                      $1::int + 1 as next, true as yes`,
        values: ['41'],
      },
    ]);
    expect(seen).toEqual({ uid: demo.claims.sub, role: 'authenticated', header: 'yes', next: 42, yes: true });
    const [after] = await backend.db.query<{ role: string; uid: string | null }>(
      'select current_user as role, auth.uid() as uid',
    );
    expect(after).toEqual({ role: 'postgres', uid: null });
  });

  it('rolls every statement back when one fails, and says which', async () => {
    const name = `pipeline-${engine}-${Date.now()}`;
    const failed = await backend.db
      .pipeline([
        { text: `insert into local_server.secrets (name, value) values ($1, 'kept?')`, values: [name] },
        { text: 'select 1 / 0', values: [] },
        { text: `insert into local_server.secrets (name, value) values ($1 || '-after', 'kept?')`, values: [name] },
      ])
      .catch((e: unknown) => e as { code: string; statement: number });
    expect(failed).toMatchObject({ code: '22012', statement: 1 });
    const kept = await backend.db.query('select 1 from local_server.secrets where name like $1', [`${name}%`]);
    expect(kept).toHaveLength(0);
  });

  it('an ended session stops the call before it runs: the order is refused with 401 and nothing moves', async () => {
    const token = await freshToken(backend);
    const buyer = await trader(backend, { cash: 1000 });
    const session = (await buyer.client.auth.getSession()).data.session!;
    await backend.db.query('delete from auth.sessions where user_id = $1', [buyer.id]);
    const res = await fetch(`${backend.url}/rest/v1/rpc/place_order`, {
      method: 'POST',
      headers: {
        apikey: backend.anonKey,
        Authorization: `Bearer ${session.access_token}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ p_token: token, p_side: 'buy', p_type: 'limit', p_amount: 1, p_price: 1 }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe('Your session has ended. Please sign in again.');
    const orders = await backend.db.query('select 1 from orders where user_id = $1', [buyer.id]);
    expect(orders).toHaveLength(0);
  });

  it('a notification raised inside a pipeline reaches its listeners', async () => {
    const heard: string[] = [];
    const stop = await backend.db.listen('pipeline_probe', (payload) => heard.push(payload));
    await backend.db.pipeline([{ text: `select pg_notify('pipeline_probe', $1)`, values: ['hello'] }]);
    await eventually(async () => (heard.includes('hello') ? true : undefined), 5000);
    await stop();
  });
});
