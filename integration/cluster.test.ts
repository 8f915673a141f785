import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { SupabaseClient } from '@supabase/supabase-js';
import { apiKeys, startCluster, type Cluster } from '../scripts/lib/cluster';
import { findTools } from '../scripts/lib/cluster/tools';
import { DEMO_ACCOUNTS } from '../server/demo';
import { client, subscribed } from './harness/clients';

jest.setTimeout(300_000);

/**
 * The production shape (npm run cluster): a primary and a streaming replica, PgBouncer in
 * transaction mode, two hosts of two processes, HAProxy in front. It needs Debian's postgresql,
 * pgbouncer and haproxy (.ci/run installs them); without them this file says so and skips.
 */
const tools = findTools();
const available = !('missing' in tools);
const onCluster = available ? describe : describe.skip;
if (!available)
  console.warn(
    `cluster tests skipped: install ${tools.missing.join(', ')} (apt-get install postgresql pgbouncer haproxy)`,
  );

onCluster('RepX as a cluster', () => {
  let cluster: Cluster;
  let dir: string;
  let anonKey: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-cluster-'));
    cluster = await startCluster({ dir, env: { RATE_LIMITS: 'off', REALTIME_LIMITS: 'off' } });
    anonKey = (await apiKeys(cluster)).anon;
  });
  afterAll(async () => {
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The demo user, signed in through `url` (the balancer, or one host). */
  async function demo(url: string): Promise<SupabaseClient> {
    const c = client(url, anonKey);
    const { error } = await c.auth.signInWithPassword(DEMO_ACCOUNTS.user);
    if (error) throw error;
    await c.realtime.setAuth();
    return c;
  }
  const sarah = async (c: SupabaseClient) =>
    ((await c.from('tokens').select('id').eq('username', 'sarahchen').single()).data as { id: string }).id;
  const commits = async (url: string) => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { rows } = await db.query<{ n: string }>(
      `select xact_commit::text as n from pg_stat_database where datname = current_database()`,
    );
    await db.end();
    return Number(rows[0]!.n);
  };

  it('writes its layout, every part listening', () => {
    const layout = JSON.parse(fs.readFileSync(path.join(dir, 'layout.json'), 'utf8')) as Cluster['layout'];
    expect(layout.hosts.map((h) => new URL(h.url).hostname)).toEqual(['127.0.0.2', '127.0.0.3']);
    for (const part of [layout.primary, layout.replica, layout.pooler, layout.balancer, ...layout.hosts])
      expect(() => process.kill(part.pid, 0)).not.toThrow();
  });

  it("serves market reads from the replica, and the user's own reads and writes from the primary", async () => {
    const c = await demo(cluster.layout.api);
    await new Promise((r) => setTimeout(r, 300)); // the new session reaches the replica
    const before = await commits(cluster.layout.replica.url);
    for (let i = 0; i < 200; i++) {
      const { error } = await c.from('market_tokens').select('id, price').order('market_cap').limit(25);
      expect(error).toBeNull();
    }
    // A backend the pooler keeps idle hands its counts over up to 10 s later (PGSTAT_IDLE_INTERVAL).
    let served = 0;
    for (const until = Date.now() + 15_000; served < 200 && Date.now() < until;)
      if ((served = (await commits(cluster.layout.replica.url)) - before) < 200)
        await new Promise((r) => setTimeout(r, 500));
    expect(served).toBeGreaterThanOrEqual(200);
    // An order through the pooler, and the user's own orders read back at once from the primary.
    const token = await sarah(c);
    const placed = await c.rpc('place_order', {
      p_token: token,
      p_side: 'sell',
      p_type: 'limit',
      p_amount: 1,
      p_price: 70,
    });
    expect(placed.error).toBeNull();
    const { data: mine } = await c.rpc('list_open_orders', { p_token: token });
    expect((mine as { id: number }[]).map((o) => o.id)).toContain((placed.data as { order_id: number }).order_id);
    await c.rpc('cancel_all_orders', { p_token: token });
  });

  it('tells a watcher on host B, within a second, of an order placed through host A', async () => {
    const [onA, onB] = [await demo(cluster.layout.hosts[0]!.url), await demo(cluster.layout.hosts[1]!.url)];
    const token = await sarah(onA);
    const heard: number[] = [];
    await subscribed(
      onB
        .channel('market', { config: { private: true } })
        .on('broadcast', { event: 'token' }, (m) => m.payload.token_id === token && heard.push(Date.now())),
    );
    const sentAt = Date.now();
    expect(
      (await onA.rpc('place_order', { p_token: token, p_side: 'sell', p_type: 'limit', p_amount: 1, p_price: 71 }))
        .error,
    ).toBeNull();
    while (!heard.length && Date.now() - sentAt < 5000) await new Promise((r) => setTimeout(r, 20));
    expect(heard.length).toBeGreaterThan(0);
    expect(heard[0]! - sentAt).toBeLessThan(1000);
    await onA.rpc('cancel_all_orders', { p_token: token });
    await onB.removeAllChannels();
  });

  it('reads from the primary within 5 s of the replica being killed, and from the replica once it is back', async () => {
    const c = await demo(cluster.layout.api);
    process.kill(cluster.replica.pid(), 'SIGKILL');
    const since = Date.now();
    let answered = 0;
    while (Date.now() - since < 5000) {
      const { error } = await c.from('market_tokens').select('id').limit(1);
      if (!error) answered++;
    }
    // Every read after the first few answered (one may meet the dying connection).
    const { error } = await c.from('market_tokens').select('id').limit(1);
    expect(error).toBeNull();
    expect(answered).toBeGreaterThan(10);
    // Started again, it catches up and serves reads again.
    await cluster.restartReplica();
    const until = Date.now() + 20_000;
    let served = false;
    while (!served && Date.now() < until) {
      const before = await commits(cluster.layout.replica.url);
      for (let i = 0; i < 20; i++) await c.from('market_tokens').select('id').limit(1);
      await new Promise((r) => setTimeout(r, 1200));
      served = (await commits(cluster.layout.replica.url)) - before >= 20;
    }
    expect(served).toBe(true);
  });

  it('answers 503 in words to requests the restarting pooler cut, and serves the next ones', async () => {
    const c = await demo(cluster.layout.api);
    const token = await sarah(c);
    // Plain requests, as the server answers them: supabase-js would retry a read's 503 by itself.
    const token_ = (await c.auth.getSession()).data.session!.access_token;
    const statuses: number[] = [];
    let restartedAt = 0;
    const stream = (async () => {
      while (!restartedAt || Date.now() < restartedAt + 1000) {
        const r = await fetch(`${cluster.layout.api}/rest/v1/market_tokens?select=id&limit=1`, {
          headers: { apikey: anonKey, Authorization: `Bearer ${token_}` },
        });
        statuses.push(r.status);
        if (r.status === 503)
          expect(((await r.json()) as { message: string }).message).toBe(
            'The database connection was lost. Please retry.',
          );
        else expect(r.status).toBe(200);
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    await cluster.restartPooler();
    restartedAt = Date.now();
    await stream;
    expect(statuses).toContain(503);
    expect(statuses.at(-1)).toBe(200);
    const after = await c.rpc('place_order', {
      p_token: token,
      p_side: 'sell',
      p_type: 'limit',
      p_amount: 1,
      p_price: 72,
    });
    expect(after.error).toBeNull();
    await c.rpc('cancel_all_orders', { p_token: token });
  });

  it('loses no acknowledged order when a host is killed during a stream of orders through the balancer; sockets move to the other host', async () => {
    const c = await demo(cluster.layout.api);
    const token = await sarah(c);
    // Two watchers through the balancer: it deals their sockets to both hosts.
    const watchers = await Promise.all(
      [0, 1].map(async () => {
        const w = await demo(cluster.layout.api);
        const heard: unknown[] = [];
        await subscribed(
          w.channel('market', { config: { private: true } }).on('broadcast', { event: 'token' }, (m) => {
            if (m.payload.token_id === token) heard.push(m.payload);
          }),
        );
        return { w, heard };
      }),
    );
    const acknowledged: number[] = [];
    let failed = 0;
    const stream = (async () => {
      for (let i = 0; i < 120; i++) {
        const r = await c.rpc('place_order', {
          p_token: token,
          p_side: 'sell',
          p_type: 'limit',
          p_amount: 1,
          p_price: 80 + i / 100,
        });
        if (r.error) failed++;
        else acknowledged.push((r.data as { order_id: number }).order_id);
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    process.kill(cluster.hosts[0]!.pid!, 'SIGKILL');
    await stream;
    const db = new pg.Client({ connectionString: cluster.layout.primary.url });
    await db.connect();
    const { rows } = await db.query<{ id: string }>(`select id::text from orders where id = any($1::bigint[])`, [
      acknowledged,
    ]);
    await db.end();
    expect(rows.length).toBe(acknowledged.length);
    expect(acknowledged.length).toBeGreaterThan(100); // the balancer stopped sending to the dead host at once
    console.log(`${acknowledged.length} orders acknowledged and kept, ${failed} refused while host A died`);
    // Two seconds on, every request is served; and both watchers, reconnected, hear the next order.
    await new Promise((r) => setTimeout(r, 2000));
    for (let i = 0; i < 20; i++) expect((await c.from('market_tokens').select('id').limit(1)).error).toBeNull();
    for (const w of watchers) w.heard.length = 0;
    const until = Date.now() + 15_000;
    while (watchers.some((w) => !w.heard.length) && Date.now() < until) {
      await c.rpc('place_order', { p_token: token, p_side: 'sell', p_type: 'limit', p_amount: 1, p_price: 99 });
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(watchers.map((w) => w.heard.length > 0)).toEqual([true, true]);
    for (const w of watchers) await w.w.removeAllChannels();
    await c.rpc('cancel_all_orders', { p_token: token });
  });
});
