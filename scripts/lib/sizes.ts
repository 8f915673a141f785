import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** Total gzipped size in bytes of the .js files directly in `dir`, less those in `except`. */
export function gzippedJs(dir: string, except: Set<string> = new Set()): number {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js') && !except.has(f))
    .reduce((sum, f) => sum + gzippedFile(path.join(dir, f)), 0);
}

/** One file's gzipped size in bytes. */
export const gzippedFile = (file: string) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
