import pg from 'pg';
import type { Backend } from '../server/index';
import { ADMIN_URL, ENGINES, backendFor } from './harness/backends';
import { subscribed } from './harness/clients';
import { freshToken, placeOrder, trader } from './harness/market';

const onPostgres = ENGINES.includes('postgres') ? describe : describe.skip;

onPostgres('when PostgreSQL ends every connection of the server', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor('postgres')();
  });
  afterAll(() => backend.close());

  it('the server keeps serving and live updates resume by themselves', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const events: unknown[] = [];
    await seller.client.realtime.setAuth();
    const channel = seller.client
      .channel('market', { config: { private: true } })
      .on('broadcast', { event: 'token' }, (m) => m.payload.token_id === token && events.push(m));
    await subscribed(channel);

    const [{ datname }] = (await backend.db.query<{ datname: string }>('select current_database() as datname')) as [
      { datname: string },
    ];
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [datname],
    );
    await admin.end();

    // Requests succeed again (the pool replaces its connections; one request racing the pool's
    // notice of a dead connection may fail, as a request in flight would)...
    let placed = await placeOrder(seller.client, token, 'sell', 'limit', 1, 10);
    if (placed.error) placed = await placeOrder(seller.client, token, 'sell', 'limit', 1, 10);
    expect(placed.error).toBeNull();
    // ...and the follower's reads succeed again, so the market's messages flow again.
    const deadline = Date.now() + 10_000;
    while (!events.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      if (!events.length) await placeOrder(seller.client, token, 'sell', 'limit', 1, 10);
    }
    expect(events.length).toBeGreaterThan(0);
    await seller.client.removeAllChannels();
  });
});
