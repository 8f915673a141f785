/**
 * npm run cluster: RepX in the shape real traffic needs, on this machine's loopback addresses, from
 * Debian's packages (postgresql, pgbouncer, haproxy): a PostgreSQL primary and a streaming replica,
 * PgBouncer in transaction mode, two backend hosts, HAProxy with health checks in front of them, and
 * the shell and remotes pointed at the balancer (scripts/lib/cluster). It deploys the packages as
 * npm start does (SKIP_BUILD=true serves what is there), prints the URL and writes
 * .data/cluster/layout.json. Ctrl+C stops every part. Its data is thrown away at each start.
 */
import path from 'node:path';
import { deployRelease } from './deploy';
import { portsFromEnv } from './lib/config';
import { startCluster } from './lib/cluster';
import { PACKAGE_DIRS } from './webpack/packages';
import { DEMO_ACCOUNTS } from '../server/demo';
import { env } from '../server/env';

const DIR = path.resolve(__dirname, '../.data/cluster');

async function main() {
  const ports = portsFromEnv();
  if (!env().SKIP_BUILD) {
    console.log('Building the shell and the five remotes (a new release of each: npm run releases)...');
    for (const dir of PACKAGE_DIRS) await deployRelease(dir);
  }
  console.log('Starting the primary, the replica, the pooler, the hosts and the balancer...');
  let stopping = false;
  let stopParts = async () => undefined as void;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stopParts();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  const cluster = await startCluster({
    onStarting: (stopAll) => {
      stopParts = stopAll;
    },
    dir: DIR,
    hosts: Number(process.env.CLUSTER_HOSTS ?? 2),
    processes: Number(process.env.SERVER_PROCESSES ?? 2),
    frontends: { ports },
    apiPort: ports.supabase,
  });
  const { layout } = cluster;
  console.log(`
  RepX is running as a cluster.

    Open        ${layout.url}
    API         ${layout.api}  (HAProxy, process ${layout.balancer.pid})
    Hosts       ${layout.hosts.map((h) => `${h.url} (process ${h.pid})`).join(', ')}
    Pooler      ${layout.pooler.url}  (PgBouncer, transaction mode)
    Primary     ${layout.primary.url}
    Replica     ${layout.replica.url}  (streaming, reads that tolerate its lag)
    Layout      ${path.join(DIR, 'layout.json')}

    Demo user   ${DEMO_ACCOUNTS.user.email} / ${DEMO_ACCOUNTS.user.password}
    Admin       ${DEMO_ACCOUNTS.admin.email} / ${DEMO_ACCOUNTS.admin.password}  (admin sign-in: ${layout.url}/auth/nra)

  Press Ctrl+C to stop every part.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
