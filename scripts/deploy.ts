/**
 * Releases of a package, built and switched without stopping anyone's work (lib/releases.ts):
 *
 *   npm run deploy -- mf-wallet     # build a new release and make it live (every package if none named)
 *   npm run rollback -- mf-wallet   # make the release before the live one live again, without building
 *   npm run releases -- mf-wallet   # list the kept releases and say which is live
 *
 * RELEASES_KEPT (default 5) is how many releases a deploy keeps.
 */
import path from 'node:path';
import { compile, configFor } from './build';
import { precompress } from './lib/precompress';
import {
  DEFAULT_KEPT,
  goLive,
  liveRelease,
  newReleaseId,
  previousRelease,
  prune,
  releaseIds,
  releasesDir,
} from './lib/releases';
import { ROOT } from './webpack/config';
import { env } from '../server/env';
import { PACKAGE_DIRS } from './webpack/packages';

const keptFromEnv = () => env().RELEASES_KEPT ?? DEFAULT_KEPT;
const rootOf = (dir: string) => releasesDir(path.join(ROOT, dir));

/** Builds `dir` into a new release under `root`, makes it live, and prunes the oldest beyond `kept`. */
export async function deployRelease(dir: string, root = rootOf(dir), kept = keptFromEnv()) {
  const id = newReleaseId();
  const out = path.join(root, id);
  await compile(configFor(dir, { mode: 'production', outDir: out, buildId: id }));
  precompress(out);
  goLive(root, id);
  return { id, removed: prune(root, kept) };
}

/** Makes the release before the live one live again. */
export function rollBack(root: string): { from: string | null; to: string } {
  const from = liveRelease(root);
  const to = previousRelease(root);
  if (!to)
    throw new Error(from ? `${from} is the oldest release kept: there is none to go back to.` : 'No release is live.');
  goLive(root, to);
  return { from, to };
}

function packagesOf(args: string[]): string[] {
  const unknown = args.filter((a) => !(PACKAGE_DIRS as string[]).includes(a));
  if (unknown.length) throw new Error(`Unknown package ${unknown.join(', ')}. Known: ${PACKAGE_DIRS.join(', ')}`);
  return args.length ? args : PACKAGE_DIRS;
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const dirs = packagesOf(args);
  for (const dir of dirs) {
    const root = rootOf(dir);
    if (command === 'deploy') {
      const t = Date.now();
      const { id, removed } = await deployRelease(dir, root);
      const pruned = removed.length ? `; removed ${removed.join(', ')}` : '';
      console.log(`${dir}: release ${id} is live (${((Date.now() - t) / 1000).toFixed(1)} s${pruned})`);
    } else if (command === 'rollback') {
      if (args.length !== 1) throw new Error('Name the one package to roll back: npm run rollback -- mf-wallet');
      const { from, to } = rollBack(root);
      console.log(`${dir}: release ${to} is live again (was ${from}); reload to see it`);
    } else if (command === 'releases') {
      const live = liveRelease(root);
      const ids = releaseIds(root);
      console.log(`${dir}: ${ids.length ? '' : 'no release yet (npm run deploy -- ' + dir + ')'}`);
      for (const id of ids.reverse()) console.log(`  ${id}${id === live ? '  live' : ''}`);
    } else {
      throw new Error('Usage: deploy.ts <deploy|rollback|releases> [package...]');
    }
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
