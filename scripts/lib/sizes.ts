import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** Total gzipped size in bytes of the .js files directly in `dir`. */
export function gzippedJs(dir: string): number {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(dir, f)), { level: 9 }).length, 0);
}
