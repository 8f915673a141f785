/**
 * npm start: deploys every package as a new release (unless SKIP_BUILD=true), starts the backend on the embedded
 * database (or DATABASE_URL), serves the shell and each remote on its own port, and prints the
 * URL to open with the demo credentials.
 *
 * The backend runs in a process of its own (server/main.ts, as `npm run cluster`'s hosts
 * run it): nothing a request to a static server meets can end trading, and a backend that dies is
 * started again while the pages stay up.
 */
import type { ChildProcess } from 'node:child_process';
import { running, startBackendProcess } from './lib/backendProcess';
import { deployRelease } from './deploy';
import { portsFromEnv } from './lib/config';
import { startFrontends, type Stack } from './lib/stack';
import { PACKAGE_DIRS } from './webpack/packages';
import { DEMO_ACCOUNTS } from '../server/demo';
import { env } from '../server/env';

async function main() {
  const ports = portsFromEnv();
  if (!env().SKIP_BUILD) {
    console.log('Building the shell and the five remotes (a new release of each: npm run releases)...');
    for (const dir of PACKAGE_DIRS) await deployRelease(dir);
  }
  let stopping = false;
  let backend: ChildProcess;
  const restart = (code: number | null, signal: string | null) => {
    if (stopping) return;
    console.error(`The backend stopped (${signal ?? `exit ${code}`}); starting it again...`);
    setTimeout(() => {
      if (stopping) return;
      const again = startBackendProcess({ SUPABASE_PORT: String(ports.supabase) }, restart);
      backend = again.child;
      again.ready.catch((error: unknown) => {
        console.error(error instanceof Error ? error.message : error);
        process.exit(1);
      });
    }, 1_000);
  };
  let frontends: Stack | undefined = undefined; // until they listen: a Ctrl+C before then stops the backend alone
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const exited = running(backend) ? new Promise((r) => backend.once('exit', r)) : null;
    backend.kill('SIGTERM');
    await Promise.all([frontends?.close(), exited]);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  const first = startBackendProcess({ SUPABASE_PORT: String(ports.supabase) }, restart);
  backend = first.child;
  const ready = await first.ready;
  frontends = await startFrontends(ports, ready.anonKey);
  console.log(`
  RepX is running.

    Open        ${frontends.shell.url}
    Backend     ${ready.ready}  (${ready.engine === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'}, process ${backend.pid})
    Remotes     ${Object.entries(frontends.remotes)
      .map(([n, s]) => `${n} ${s?.url}`)
      .join(', ')}

    Demo user   ${DEMO_ACCOUNTS.user.email} / ${DEMO_ACCOUNTS.user.password}
    Admin       ${DEMO_ACCOUNTS.admin.email} / ${DEMO_ACCOUNTS.admin.password}  (admin sign-in: ${frontends.shell.url}/auth/nra)

  Press Ctrl+C to stop.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
