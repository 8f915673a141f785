import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { SupabaseClient } from '@supabase/supabase-js';
import { apiKeys, startCluster, type Cluster } from '../lib/cluster';
import { findTools } from '../lib/cluster/tools';
import { partsSpent, sampleParts } from '../lib/cpu';
import { httpFetch } from '../lib/httpFetch';
import { metricValue } from '../../server/metrics';
import { client } from '../../integration/harness/clients';
import { percentile, round1, round2 } from './common';

/** Clients placing orders, and reading the market, at once. */
const CLIENTS = 16;
const RUN_MS = 10_000;

export interface ClusterPoint {
  hosts: number;
  replica: boolean;
  orders_per_s: number;
  order_p99_ms: number;
  reads_per_s: number;
  read_p99_ms: number;
  /** CPU per request of each part, in ms, over both runs. */
  cpu_ms_per_request: Record<string, number>;
  replica_lag_max_ms: number | null;
}

/** `CLIENTS` traders, each with cash and tokens of the seed's six, signed in through the balancer. */
async function traders(cluster: Cluster, anon: string) {
  const db = new pg.Client({ connectionString: cluster.layout.primary.url });
  await db.connect();
  const out: SupabaseClient[] = [];
  const { rows: tokens } = await db.query<{ id: string }>(
    `select id from tokens where owner_id is not null order by id limit 6`,
  );
  for (let i = 0; i < CLIENTS; i++) {
    const email = `cluster${i}-${Date.now()}@bench.repx.dev`;
    const admin = client(cluster.layout.api, (await apiKeys(cluster)).service, {}, undefined, httpFetch);
    const made = await admin.auth.admin.createUser({
      email,
      password: 'bench-pass-1',
      email_confirm: true,
      user_metadata: { username: `cl${i}${Date.now()}` },
    });
    if (made.error) throw made.error;
    await db.query('select private.record_deposit($1, 100000)', [made.data.user.id]);
    for (const t of tokens) await db.query('select private.issue_tokens($1, $2, 1000)', [t.id, made.data.user.id]);
    const c = client(cluster.layout.api, anon, {}, undefined, httpFetch);
    const signed = await c.auth.signInWithPassword({ email, password: 'bench-pass-1' });
    if (signed.error) throw signed.error;
    out.push(c);
  }
  await db.end();
  return { clients: out, tokens: tokens.map((t) => t.id) };
}

/** Runs `call` on every client for RUN_MS: calls per second and p99. */
async function closedLoop(clients: SupabaseClient[], call: (c: SupabaseClient, i: number) => PromiseLike<unknown>) {
  const latencies: number[] = [];
  const end = performance.now() + RUN_MS;
  const started = performance.now();
  await Promise.all(
    clients.map(async (c, w) => {
      for (let i = w; performance.now() < end; i += clients.length) {
        const t = performance.now();
        await call(c, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    perSecond: Math.round(latencies.length / ((performance.now() - started) / 1000)),
    p99: round1(percentile(latencies, 99)),
  };
}

/**
 * The production shape under load (npm run cluster's parts): orders and market reads through the
 * balancer from 16 clients, with one host and with two, reading from the replica and not. On two
 * CPUs two hosts cannot be faster than one: the run says what each part costs per request.
 */
export async function benchCluster(): Promise<ClusterPoint[] | { skipped: string }> {
  const tools = findTools();
  if ('missing' in tools) return { skipped: `needs ${tools.missing.join(', ')}` };
  const points: ClusterPoint[] = [];
  for (const [hosts, replica] of [
    [1, false],
    [1, true],
    [2, false],
    [2, true],
  ] as const) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-bench-cluster-'));
    const cluster = await startCluster({ dir, hosts, readReplica: replica, env: { RATE_LIMITS: 'off' } });
    try {
      const { anon, service } = await apiKeys(cluster);
      const { clients, tokens } = await traders(cluster, anon);
      await new Promise((r) => setTimeout(r, 500));
      const parts = {
        balancer: [cluster.layout.balancer.pid],
        hosts: cluster.layout.hosts.map((h) => h.pid),
        pooler: [cluster.layout.pooler.pid],
        primary: [cluster.layout.primary.pid],
        replica: [cluster.layout.replica.pid],
      };
      const before = sampleParts(parts);
      let lagMax = 0;
      const watching = setInterval(() => {
        for (const h of cluster.layout.hosts)
          void fetch(`${h.url}/metrics`, { headers: { Authorization: `Bearer ${service}` } })
            .then((r) => r.text())
            .then((t) => (lagMax = Math.max(lagMax, metricValue(t, 'repx_replica_lag_ms'))))
            .catch(() => undefined);
      }, 250);
      const orders = await closedLoop(clients, (c, i) =>
        c.rpc('place_order', {
          p_token: tokens[i % tokens.length],
          p_side: i % 2 ? 'buy' : 'sell',
          p_type: 'limit',
          p_amount: 1 + (i % 5),
          p_price: Math.round((40 + (i % 13) / 10) * 100) / 100,
        }),
      );
      const reads = await closedLoop(clients, (c) =>
        c.from('market_tokens').select('id, name, price').order('market_cap').limit(25),
      );
      clearInterval(watching);
      const after = sampleParts(parts);
      const spent = before && after ? partsSpent(before, after) : {};
      const requests = orders.calls + reads.calls;
      points.push({
        hosts,
        replica,
        orders_per_s: orders.perSecond,
        order_p99_ms: orders.p99,
        reads_per_s: reads.perSecond,
        read_p99_ms: reads.p99,
        cpu_ms_per_request: Object.fromEntries(
          Object.entries(spent).map(([k, s]) => [k, round2((s * 1000) / requests)]),
        ),
        replica_lag_max_ms: replica ? lagMax : null,
      });
    } finally {
      await cluster.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return points;
}
