/**
 * npm start: deploys every package as a new release (unless SKIP_BUILD=true), starts the backend on the embedded
 * database (or DATABASE_URL), serves the shell and each remote on its own port, and prints the
 * URL to open with the demo credentials.
 */
import { startBackend } from '../supabase/server/index';
import { backendOptionsFromEnv } from '../supabase/server/options';
import { PGLITE_DURABILITY_NOTE } from '../supabase/server/db/pglite';
import { deployRelease } from './deploy';
import { portsFromEnv } from './lib/config';
import { startFrontends } from './lib/stack';
import { PACKAGE_DIRS } from './webpack/packages';
import { DEMO_ACCOUNTS } from '../supabase/server/demo';

async function main() {
  const ports = portsFromEnv();
  if (process.env.SKIP_BUILD !== 'true') {
    console.log('Building the shell and the five remotes (a new release of each: npm run releases)...');
    for (const dir of PACKAGE_DIRS) await deployRelease(dir);
  }
  const backend = await startBackend({ ...backendOptionsFromEnv(), port: ports.supabase });
  const frontends = await startFrontends(ports, backend.anonKey);
  console.log(`
  RepX is running.

    Open        ${frontends.shell.url}
    Backend     ${backend.url}  (${backend.db.kind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'})
    Remotes     ${Object.entries(frontends.remotes)
      .map(([n, s]) => `${n} ${s?.url}`)
      .join(', ')}

    Demo user   ${DEMO_ACCOUNTS.user.email} / ${DEMO_ACCOUNTS.user.password}
    Admin       ${DEMO_ACCOUNTS.admin.email} / ${DEMO_ACCOUNTS.admin.password}  (admin sign-in: ${frontends.shell.url}/auth/nra)

  Press Ctrl+C to stop.`);
  if (backend.db.kind === 'pglite') console.log(`\n  Note: ${PGLITE_DURABILITY_NOTE}`);
  const stop = async () => {
    await frontends.close();
    await backend.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
