import fs from 'node:fs';
import path from 'node:path';
import type { StatsCompilation } from 'webpack';
import { sharedConfig } from './federation';

/**
 * What a build must hold before it ships, checked from webpack's stats and the files it wrote:
 * each shared library bundled at the version the shell declares, and each bundle within its
 * budget. A failure names the number and the biggest modules, so the fix starts there.
 */

/** Gzipped kilobytes. The landing page: the shell without its on-demand chunks (build.ts). */
export const BUDGETS_KB = {
  landing: 170,
  /** Each remote's remoteEntry.js: the federation runtime and the remote's table of modules. */
  remoteEntry: 30,
  /** What a first visit to a screen downloads: the whole shell, the remote's entry, the screen's chunks. */
  firstVisit: { market: 350, portfolio: 385, trading: 380, wallet: 380, admin: 390 } as Record<string, number>,
};

/** The package a module of the bundle comes from, and its installed version. */
function packageOf(resource: string): { name: string; version: string } | undefined {
  const match = /^(.*[\\/]node_modules[\\/])((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(resource);
  if (!match) return undefined;
  const file = path.join(match[1]!, match[2]!, 'package.json');
  if (!fs.existsSync(file)) return undefined;
  const { name, version } = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; version: string };
  return { name, version };
}

/**
 * Shared singletons bundled at a version other than the one declared to Module Federation (its
 * singleton check compares declarations, so a wrong one lets two copies meet in the browser).
 */
export function singletonMismatches(stats: StatsCompilation): string[] {
  const declared = sharedConfig(true);
  const problems = new Set<string>();
  for (const m of stats.modules ?? []) {
    const pkg = m.nameForCondition ? packageOf(m.nameForCondition) : undefined;
    if (!pkg) continue;
    const share = declared[pkg.name as keyof typeof declared];
    if (share && share.version !== pkg.version)
      problems.add(`${pkg.name}: bundled ${pkg.version}, declared ${share.version}`);
  }
  return [...problems];
}

/** The biggest modules of the given chunk files, for a budget's message. */
export function biggestModules(stats: StatsCompilation, files: string[], top = 5): string {
  const chunkIds = new Set(
    (stats.chunks ?? []).filter((c) => c.files?.some((f) => files.includes(f))).map((c) => c.id),
  );
  return (stats.modules ?? [])
    .filter((m) => m.chunks?.some((id) => chunkIds.has(id)))
    .sort((a, b) => (b.size ?? 0) - (a.size ?? 0))
    .slice(0, top)
    .map((m) => `${(m.name ?? '?').replace(/^\.\/|\s.*$/g, '')} (${((m.size ?? 0) / 1024).toFixed(1)} KB)`)
    .join(', ');
}

/** A budget's verdict: undefined when within it, else the message that fails the build. */
export function overBudget(what: string, kb: number, budgetKb: number, biggest: () => string): string | undefined {
  return kb <= budgetKb
    ? undefined
    : `${what}: ${kb.toFixed(1)} KB gzipped, over its ${budgetKb} KB budget. Biggest modules: ${biggest()}`;
}
