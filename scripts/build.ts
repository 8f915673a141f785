/**
 * Builds the shell and every remote for production (or the packages named on the command line)
 * and prints each package's gzipped JavaScript and the landing page's budget.
 *
 *   npm run build                  # everything
 *   npm run build -- mf-wallet     # one remote, nothing else
 *   BUILD_ID=v2 OUT_DIR=/tmp/w npm run build -- mf-wallet
 */
import fs from 'node:fs';
import path from 'node:path';
import webpack, { type Configuration, type Stats } from 'webpack';
import { remoteConfig, shellConfig, ROOT, type BuildOptions } from './webpack/config';
import { PACKAGE_DIRS, REMOTE_NAMES, REMOTES, SHELL } from './webpack/packages';
import { gzippedFile, gzippedJs } from './lib/sizes';
import { BUDGETS_KB, biggestModules, overBudget, singletonMismatches } from './webpack/checks';
import { precompress } from './lib/precompress';
import { env } from '../server/env';

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

/**
 * Each exposed screen's own JavaScript (mf-manifest.json): the chunks it loads to render. Its
 * async chunks (the statement's PDF library, say) wait for a click, so a first visit skips them.
 */
function screensOf(out: string): { screen: string; files: string[] }[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(out, 'mf-manifest.json'), 'utf8')) as {
    exposes: { name: string; assets: { js: { sync: string[]; async: string[] } } }[];
  };
  return manifest.exposes.map((e) => ({ screen: e.name, files: e.assets.js.sync }));
}

/** Builds, prints each package's size, and returns what broke a budget or the singleton check. */
async function buildAndCheck(dir: string, outDir: string | undefined, shellKb: () => number): Promise<string[]> {
  const t = Date.now();
  const compiled = await compile(configFor(dir, { mode: 'production', outDir, buildId: env().BUILD_ID }));
  const out = outDir ?? path.join(ROOT, dir, 'dist');
  precompress(out);
  const kb = (gzippedJs(out) / 1024).toFixed(1);
  console.log(`built ${dir.padEnd(13)} ${kb.padStart(7)} KB gzipped JS   (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  const stats = compiled.toJson({ all: false, modules: true, chunks: true, chunkModules: false, ids: true });
  const problems = singletonMismatches(stats);
  const biggest = (files: string[]) => () => biggestModules(stats, files);
  const js = fs.readdirSync(out).filter((f) => f.endsWith('.js'));
  if (dir === SHELL.dir) {
    // The shell has no lazy routes: the landing page loads all of it but its on-demand chunks.
    const onDemand = onDemandFiles(compiled);
    const landing = gzippedJs(out, onDemand) / 1024;
    console.log(`  landing page: ${landing.toFixed(1)} KB gzipped JS (budget ${BUDGETS_KB.landing} KB)`);
    const files = js.filter((f) => !onDemand.has(f));
    problems.push(
      ...[overBudget('landing page', landing, BUDGETS_KB.landing, biggest(files))].filter((p) => p !== undefined),
    );
    return problems;
  }
  const kbOf = (files: string[]) => files.reduce((sum, f) => sum + gzippedFile(path.join(out, f)), 0) / 1024;
  const entry = kbOf(['remoteEntry.js']);
  const entryOver = overBudget(`${dir} remoteEntry.js`, entry, BUDGETS_KB.remoteEntry, biggest(['remoteEntry.js']));
  if (entryOver) problems.push(entryOver);
  const name = REMOTE_NAMES.find((n) => REMOTES[n].dir === dir)!;
  for (const { screen, files } of screensOf(out)) {
    const firstVisit = shellKb() + entry + kbOf(files);
    const budget = BUDGETS_KB.firstVisit[name]!;
    console.log(
      `  first visit to ${screen}: ${firstVisit.toFixed(1)} KB gzipped JS with the shell (budget ${budget} KB)`,
    );
    const over = overBudget(`first visit to ${screen}`, firstVisit, budget, biggest(files));
    if (over) problems.push(over);
  }
  return problems;
}

async function main() {
  const dirs = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const targets = dirs.length ? dirs : PACKAGE_DIRS;
  const outDir = env().OUT_DIR;
  if (outDir && targets.length !== 1) throw new Error('OUT_DIR needs exactly one package');
  const started = Date.now();
  // A first visit downloads the whole shell: an upper bound (the shell's own chunks are few).
  const shellKb = () => gzippedJs(path.join(ROOT, SHELL.dir, 'dist')) / 1024;
  const problems: string[] = [];
  for (const dir of targets) problems.push(...(await buildAndCheck(dir, outDir, shellKb)));
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (problems.length) throw new Error(`The build is refused:\n  ${problems.join('\n  ')}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
