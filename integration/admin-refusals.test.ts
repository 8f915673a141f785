import crypto from 'node:crypto';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, client, signedIn } from './harness/clients';
import { trader } from './harness/market';

/** A value of each argument type, so that a refusal is the role check and not a missing function. */
const SAMPLE: Record<string, () => unknown> = {
  uuid: () => crypto.randomUUID(),
  bigint: () => 1,
  integer: () => 1,
  numeric: () => 1,
  text: () => 'x',
  boolean: () => false,
  jsonb: () => ({}),
  interval: () => '1 hour',
};

describe.each(ENGINES)('every admin function, found in the catalog, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('is refused to a user (the role check in the database) and to anon, and answers an admin', async () => {
    const fns = await backend.db.query<{ name: string; args: string[] | null; types: string[] }>(
      `select p.proname as name, (p.proargnames)[1:p.pronargs] as args, array(select format_type(t, null) from unnest(p.proargtypes) t) as types
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'public' and p.proname like 'admin\\_%' order by p.proname`,
    );
    expect(fns.length).toBeGreaterThanOrEqual(14);
    const user = await trader(backend);
    const anon = client(backend.url);
    const admin = await signedIn(backend.url, ADMIN);
    for (const fn of fns) {
      const args = Object.fromEntries((fn.args ?? []).map((a, i) => [a, (SAMPLE[fn.types[i]!] ?? (() => null))()]));
      const asUser = await user.client.rpc(fn.name, args);
      expect({ fn: fn.name, status: asUser.status, message: asUser.error?.message }).toEqual({
        fn: fn.name,
        status: 403,
        message: 'Admin privileges required.',
      });
      const asAnon = await anon.rpc(fn.name, args);
      expect({ fn: fn.name, status: asAnon.status }).toEqual({ fn: fn.name, status: 401 });
      // The admin gets past the role check: an answer, or a refusal of the sample arguments in words.
      const asAdmin = await admin.rpc(fn.name, args);
      expect({
        fn: fn.name,
        status: asAdmin.status < 500,
        roleRefused: asAdmin.error?.message === 'Admin privileges required.',
      }).toEqual({ fn: fn.name, status: true, roleRefused: false });
    }
  });
});
