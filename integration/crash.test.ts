import { SignJWT } from 'jose';
import { createClient } from '@supabase/supabase-js';
import { ENGINES } from './harness/backends';
import { crashableServer, spawnServer, stopServer } from './harness/process';
import { ANON_KEY, JWT_SECRET, signedIn } from './harness/clients';
import { randomOrders } from './harness/load';
import { freshToken, invariantViolations, trader } from './harness/market';

jest.setTimeout(240_000);

describe.each(ENGINES)('a crash of the server on %s', (engine) => {
  it('loses nothing acknowledged: kill -9 mid-load, restart, every order is there and the books balance', async () => {
    const { url, env, open, cleanup } = await crashableServer(engine, 'repex_crash');
    // Prepare traders with cash and tokens of a fresh token, in-process, before the server runs.
    const prepared = await open();
    const token = await freshToken(prepared);
    const emails: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = await trader(prepared, { cash: 5000, token, tokens: 300 });
      emails.push((await t.client.auth.getUser()).data.user!.email!);
      // The token is the first trader's own: every trade also pays them a share of the fees.
      if (i === 0) await prepared.db.query('update tokens set owner_id = $1 where id = $2', [t.id, token]);
    }
    await prepared.close();

    let server = await spawnServer(env);
    const serviceKey = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const service = createClient(url, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { Authorization: `Bearer ${serviceKey}` } },
    });
    const traders = await Promise.all(emails.map((email) => signedIn(url, { email, password: 'password-123' })));

    let stop = false;
    let acked = 0;
    const load = Promise.all(
      traders.map((c, i) =>
        randomOrders(c, [token], { count: 10_000, seed: 100 + i, until: () => stop, onAcknowledged: () => acked++ }),
      ),
    );
    // Killed mid-load, once the load has placed a good number of orders (however fast the machine).
    for (const started = Date.now(); acked < 40 && Date.now() - started < 20_000;)
      await new Promise((r) => setTimeout(r, 50));
    await stopServer(server, 'SIGKILL');
    stop = true;
    const results = await load;
    const acknowledged = results.flatMap((r) => r.acknowledged);
    console.log(`${engine}: ${acknowledged.length} orders acknowledged before the kill`);
    expect(acknowledged.length).toBeGreaterThan(20); // the load really placed orders before the kill

    server = await spawnServer(env);
    // Every order the server acknowledged before the crash is still there.
    const found = new Set<number>();
    for (let i = 0; i < acknowledged.length; i += 200) {
      const { data, error } = await service
        .from('orders')
        .select('id')
        .in('id', acknowledged.slice(i, i + 200));
      expect(error).toBeNull();
      for (const o of data as { id: number }[]) found.add(o.id);
    }
    expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
    await stopServer(server);

    const backend = await open();
    try {
      expect(await invariantViolations(backend)).toEqual([]);
    } finally {
      await backend.close();
      await cleanup();
    }
  });
});
