import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** The landing page's gzipped JavaScript may not exceed this (the build prints it, an e2e test holds it). */
export const LANDING_BUDGET_KB = 170;

/** Total gzipped size in bytes of the .js files directly in `dir`, less those in `except`. */
export function gzippedJs(dir: string, except: Set<string> = new Set()): number {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js') && !except.has(f))
    .reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(dir, f)), { level: 9 }).length, 0);
}
