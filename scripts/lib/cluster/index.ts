import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../../integration/harness/ports';
import { JwtKeys } from '../../../server/auth/jwt';
import { prepareDatabase } from '../../../server/index';
import { startBackendProcess, stopBackendProcess } from '../backendProcess';
import type { StackPorts } from '../config';
import { startFrontends, type Stack } from '../stack';
import { REMOTE_NAMES, type RemoteName } from '../../webpack/packages';
import { restart, startPrimary, startReplica, type PostgresServer } from './postgres';
import { listening, startBalancer, startPooler, type Part } from './proxies';
import { findTools, type Tools } from './tools';

/** What `npm run cluster` started, as `.data/cluster/layout.json` says it for tests and operators. */
interface Layout {
  /** The app's address (the shell). */
  url: string;
  /** The API's address: the balancer. */
  api: string;
  primary: { url: string; pid: number };
  replica: { url: string; pid: number };
  pooler: { url: string; pid: number };
  balancer: { url: string; pid: number };
  hosts: { url: string; pid: number }[];
}

export interface ClusterOptions {
  /** Where its data and logs go (.data/cluster); emptied first. */
  dir: string;
  hosts?: number;
  /** Whether the hosts read from the replica (it runs either way). */
  readReplica?: boolean;
  /** SERVER_PROCESSES of each host. */
  processes?: number;
  /** Serve the shell and the remotes too, pointed at the balancer (their ports: `ports`, 0 for free ones). */
  frontends?: { ports: StackPorts; dirOf?: (pkg: string) => string };
  /** The balancer's port (the API's), 0 for a free one. */
  apiPort?: number;
  /** Settings every host gets (REPLICA_MAX_LAG_MS, RATE_LIMITS, ...). */
  env?: Record<string, string>;
  /** Hears at once how to stop what has started, so a Ctrl+C during the start stops it too. */
  onStarting?: (stop: () => Promise<void>) => void;
}

/** How long a host may take to listen (migrations are done before: this is its start alone). */
const HOST_START_MS = 90_000;

export interface Cluster {
  layout: Layout;
  tools: Tools;
  primary: PostgresServer;
  replica: PostgresServer;
  pooler: Part;
  balancer: Part;
  hosts: ChildProcess[];
  /** Starts the replica again on its folder, as after a crash. */
  restartReplica: () => Promise<void>;
  /** Starts the pooler again on its port. */
  restartPooler: () => Promise<void>;
  stop: () => Promise<void>;
}

/** Refuses in words, naming the packages, when the machine lacks PostgreSQL's server, PgBouncer or HAProxy. */
function requireTools(): Tools {
  const tools = findTools();
  if ('missing' in tools)
    throw new Error(
      `npm run cluster needs Debian's ${tools.missing.join(', ')}: sudo apt-get install postgresql pgbouncer haproxy`,
    );
  return tools;
}

/**
 * The production shape on this machine's loopback addresses: a PostgreSQL primary and a streaming
 * replica (throw-away clusters under `dir`), PgBouncer in transaction mode in front of both, two or
 * more backend hosts (127.0.0.2, 127.0.0.3, ...) each with its SERVER_PROCESSES, HAProxy with health
 * checks in front of the hosts, and, if asked, the shell and remotes pointed at the balancer.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const tools = requireTools();
  fs.rmSync(opts.dir, { recursive: true, force: true });
  fs.mkdirSync(opts.dir, { recursive: true });
  const stops: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    stops.length = 0;
  };
  opts.onStarting?.(stopAll);
  try {
    const primary = await startPrimary(tools, path.join(opts.dir, 'primary'), await freePort());
    stops.push(primary.stop);
    const replica = startReplica(tools, primary, path.join(opts.dir, 'replica'), await freePort());
    stops.push(() => replica.stop());
    let pooler = await startPooler(tools, path.join(opts.dir, 'pooler'), await freePort(), primary, replica);
    stops.push(() => pooler.stop());
    // The database once, through the direct connection, before any host starts (MIGRATE=false on each).
    await prepareDatabase({ databaseUrl: primary.url(), databasePool: 2 });

    const hostPort = await freePort();
    const apiPort = opts.apiPort || (await freePort());
    const api = `http://localhost:${apiPort}`;
    const env = {
      DATABASE_URL: pooler.url,
      DATABASE_DIRECT_URL: primary.url(),
      DATABASE_REPLICA_URL: opts.readReplica === false ? '' : `${pooler.url}_replica`,
      SERVER_PROCESSES: String(opts.processes ?? 2),
      MIGRATE: 'false',
      SUPABASE_PORT: String(hostPort),
      SUPABASE_PUBLIC_URL: api,
      ...opts.env,
    };
    const hosts: ChildProcess[] = [];
    const addresses = Array.from({ length: opts.hosts ?? 2 }, (_, i) => `127.0.0.${i + 2}`);
    let anonKey = '';
    for (const address of addresses) {
      const host = startBackendProcess({ ...env, SUPABASE_HOST: address });
      hosts.push(host.child);
      stops.push(() => stopBackendProcess(host.child));
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`The host on ${address} did not start within 90 s.`)), HOST_START_MS).unref(),
      );
      anonKey = (await Promise.race([host.ready, timeout])).anonKey;
    }
    const balancer = await startBalancer(
      tools,
      path.join(opts.dir, 'balancer'),
      apiPort,
      addresses.map((address) => ({ address, port: hostPort })),
    );
    stops.push(balancer.stop);
    let frontends: Stack | undefined;
    if (opts.frontends) {
      frontends = await startFrontends({ ...opts.frontends.ports, supabase: apiPort }, anonKey, opts.frontends.dirOf);
      stops.push(frontends.close);
    }
    const layout: Layout = {
      url: frontends?.shell.url ?? api,
      api,
      primary: { url: primary.url(), pid: primary.pid() },
      replica: { url: replica.url(), pid: replica.pid() },
      pooler: { url: pooler.url, pid: pooler.pid() },
      balancer: { url: balancer.url, pid: balancer.pid() },
      hosts: addresses.map((address, i) => ({ url: `http://${address}:${hostPort}`, pid: hosts[i]!.pid ?? 0 })),
    };
    fs.writeFileSync(path.join(opts.dir, 'layout.json'), `${JSON.stringify(layout, null, 2)}\n`);
    return {
      layout,
      tools,
      primary,
      replica,
      get pooler() {
        return pooler;
      },
      balancer,
      hosts,
      restartReplica: async () => {
        restart(tools, replica);
        await listening(replica.port);
      },
      restartPooler: async () => {
        await pooler.stop();
        pooler = await startPooler(
          tools,
          path.join(opts.dir, 'pooler'),
          Number(new URL(pooler.url).port),
          primary,
          replica,
        );
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The frontends' ports from the environment, as npm start takes them (0: a free one). */
export const anyPorts = (): StackPorts => ({
  shell: 0,
  supabase: 0,
  remotes: Object.fromEntries(REMOTE_NAMES.map((n) => [n, 0])) as Record<RemoteName, number>,
});

/** The installation's anon and service-role keys, signed with the secret its database keeps. */
export async function apiKeys(cluster: Cluster): Promise<{ anon: string; service: string }> {
  const db = new pg.Client({ connectionString: cluster.layout.primary.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ value: string }>(
      `select value from local_server.secrets where name = 'jwt_secret'`,
    );
    const jwt = new JwtKeys(rows[0]!.value);
    return { anon: await jwt.apiKey('anon'), service: await jwt.apiKey('service_role') };
  } finally {
    await db.end();
  }
}
