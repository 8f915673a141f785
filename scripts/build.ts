/**
 * Builds the shell and every remote for production (or the packages named on the command line)
 * and prints each package's gzipped JavaScript and the landing page's budget.
 *
 *   npm run build                  # everything
 *   npm run build -- mf-wallet     # one remote, nothing else
 *   BUILD_ID=v2 OUT_DIR=/tmp/w npm run build -- mf-wallet
 */
import path from 'node:path';
import webpack, { type Configuration, type Stats } from 'webpack';
import { remoteConfig, shellConfig, ROOT, type BuildOptions } from './webpack/config';
import { PACKAGE_DIRS, REMOTE_NAMES, REMOTES, SHELL } from './webpack/packages';
import { LANDING_BUDGET_KB, gzippedJs } from './lib/sizes';
import { precompress } from './lib/precompress';
import { env } from '../supabase/server/env';

export function configFor(dir: string, opts: BuildOptions): Configuration {
  if (dir === SHELL.dir) return shellConfig(opts);
  const name = REMOTE_NAMES.find((n) => REMOTES[n].dir === dir);
  if (!name) throw new Error(`Unknown package '${dir}'. Known: ${PACKAGE_DIRS.join(', ')}`);
  return remoteConfig(name, opts);
}

export function compile(config: Configuration): Promise<Stats> {
  return new Promise((resolve, reject) => {
    webpack(config, (err, stats) => {
      if (err || !stats) return reject(err ?? new Error('webpack returned no stats'));
      if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
      resolve(stats);
    });
  });
}

/**
 * Files of chunks made only of supabase-js or the charts: the shell fetches them on demand (signed
 * in, or a screen with a chart), not on the landing page.
 */
function onDemandFiles(stats: Stats): Set<string> {
  const { chunks = [] } = stats.toJson({ all: false, chunks: true, chunkModules: true });
  const onDemand = /node_modules[\\/](@supabase|lightweight-charts|fancy-canvas)[\\/]/;
  return new Set(
    chunks
      .filter((c) => c.modules?.length && c.modules.every((m) => onDemand.test(m.name ?? '')))
      .flatMap((c) => c.files ?? []),
  );
}

export async function build(dirs: string[], opts: BuildOptions): Promise<void> {
  for (const dir of dirs) {
    await compile(configFor(dir, opts));
    precompress(opts.outDir ?? path.join(ROOT, dir, 'dist'));
  }
}

async function main() {
  const dirs = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const targets = dirs.length ? dirs : PACKAGE_DIRS;
  const outDir = process.env.OUT_DIR;
  if (outDir && targets.length !== 1) throw new Error('OUT_DIR needs exactly one package');
  const started = Date.now();
  for (const dir of targets) {
    const t = Date.now();
    const stats = await compile(configFor(dir, { mode: 'production', outDir, buildId: env().BUILD_ID }));
    const out = outDir ?? path.join(ROOT, dir, 'dist');
    precompress(out);
    const kb = (gzippedJs(out) / 1024).toFixed(1);
    console.log(
      `built ${dir.padEnd(13)} ${kb.padStart(7)} KB gzipped JS   (${((Date.now() - t) / 1000).toFixed(1)} s)`,
    );
    if (dir === SHELL.dir) {
      // The shell has no lazy routes: the landing page loads all of it but the on-demand supabase-js.
      const landing = gzippedJs(out, onDemandFiles(stats)) / 1024;
      const verdict = landing <= LANDING_BUDGET_KB ? 'within' : 'OVER';
      console.log(`  landing page: ${landing.toFixed(1)} KB gzipped JS, ${verdict} the ${LANDING_BUDGET_KB} KB budget`);
    }
  }
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
