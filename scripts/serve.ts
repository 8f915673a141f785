/**
 * Serves one built package alone, on its own port: `npx tsx scripts/serve.ts mf-wallet [dir]`.
 * It serves the package's live release (npm run deploy), or its dist/ before the first deploy.
 */
import { REMOTES, REMOTE_NAMES } from './webpack/packages';
import { portsFromEnv } from './lib/config';
import { serveStatic } from './lib/staticServer';
import { servedDir } from './lib/stack';

async function main() {
  const [dir, from] = process.argv.slice(2);
  const name = REMOTE_NAMES.find((n) => REMOTES[n].dir === dir);
  if (!name) throw new Error(`Usage: serve.ts <${REMOTE_NAMES.map((n) => REMOTES[n].dir).join('|')}> [build folder]`);
  const server = await serveStatic({ dir: from ?? servedDir(dir!), port: portsFromEnv().remotes[name] });
  console.log(`${dir} served on ${server.url} (manifest: ${server.url}/mf-manifest.json)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
