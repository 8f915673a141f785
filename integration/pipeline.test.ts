import { randomUUID } from 'node:crypto';
import type { Backend } from '../server/index';
import { callerStatement, type RequestIdentity } from '../server/db/caller';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { DEMO, identityOf, signedIn } from './harness/clients';
import { freshToken, trader } from './harness/market';

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

  it('refuses a session id that names no session or is not a uuid, after plans of both kinds; anon needs none', async () => {
    const probe = { text: 'select auth.uid()::text as uid, current_user as role', values: [] };
    const as = (role: string, session?: string) =>
      backend.db.pipeline([
        callerStatement({ role, claims: { ...demo.claims, role, session_id: session } }, REQUEST),
        probe,
      ]);
    // Six calls on one connection (sequential calls reuse it): past the custom plans a prepared
    // statement starts with, so the refusals below may meet the generic plan.
    for (let i = 0; i < 6; i++) {
      expect((await as('authenticated', demo.claims.session_id as string))[1]).toEqual([
        { uid: demo.claims.sub, role: 'authenticated' },
      ]);
    }
    for (const session of ['not-a-uuid', randomUUID(), '', undefined]) {
      await expect(as('authenticated', session)).rejects.toMatchObject({ code: '28000', statement: 0 });
    }
    expect((await as('anon', 'not-a-uuid'))[1]).toEqual([{ uid: demo.claims.sub, role: 'anon' }]);
  });

  it('a notification raised inside a pipeline reaches its listeners', async () => {
    const heard: string[] = [];
    const stop = await backend.db.listen('pipeline_probe', (payload) => heard.push(payload));
    await backend.db.pipeline([{ text: `select pg_notify('pipeline_probe', $1)`, values: ['hello'] }]);
    await eventually(async () => (heard.includes('hello') ? true : undefined), 5000);
    await stop();
  });
  it('prepares each statement once per connection: later requests only bind and run it', async () => {
    const probe = { text: `select $1::int * 2 as doubled`, values: ['21'] };
    const usage = {
      text: 'select (generic_plans + custom_plans)::int as runs from pg_prepared_statements where statement = $1',
      values: [probe.text],
    };
    let runs = 0;
    // Sequential calls reuse one connection (the pool hands back the one just released).
    for (let i = 0; i < 5; i++) {
      const [[answer], seen] = await backend.db.pipeline([probe, usage]);
      expect(answer).toEqual({ doubled: 42 });
      expect(seen).toHaveLength(1); // one prepared statement of that text on this connection
      runs = seen[0]!.runs as number;
    }
    expect(runs).toBeGreaterThanOrEqual(2);
  });

  it('a statement is parsed afresh when its result changes with the schema, and one that failed runs again', async () => {
    const table = `prepared_probe_${engine}`;
    await backend.db.exec(`create table public.${table} (a int); insert into public.${table} values (1);`);
    const read = { text: `select * from public.${table}`, values: [] };
    expect((await backend.db.pipeline([read]))[0]).toEqual([{ a: 1 }]);
    await backend.db.exec(`alter table public.${table} add column b int default 2`);
    expect((await backend.db.pipeline([read]))[0]).toEqual([{ a: 1, b: 2 }]);

    const divide = (by: string) => [read, { text: 'select 10 / $1::int as q', values: [by] }];
    await expect(backend.db.pipeline(divide('0'))).rejects.toMatchObject({ code: '22012', statement: 1 });
    expect((await backend.db.pipeline(divide('5')))[1]).toEqual([{ q: 2 }]);
    await backend.db.exec(`drop table public.${table}`);
  });

  it('lets the server take in new requests between queued pipelines, not only once the queue is empty', async () => {
    const finished: number[] = [];
    let ioTurnAfter: number | undefined;
    // A callback of the event loop's next turn: where new connections and requests are read.
    setImmediate(() => (ioTurnAfter = finished.length));
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        backend.db.pipeline([{ text: 'select $1::int as i', values: [String(i)] }]).then(() => finished.push(i)),
      ),
    );
    expect(ioTurnAfter).toBeDefined();
    expect(ioTurnAfter!).toBeLessThan(5);
  });
});
