/**
 * npm run lint: ESLint, Prettier's check and knip (no unused dependency, export or file), side by
 * side, as each waits on a different thing; each one's output is printed whole once it ends, and
 * the run fails if any of them does. ESLint and Prettier keep caches in node_modules/.cache, so a
 * second run reads only the files that changed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const bin = (file: string) => path.join(ROOT, 'node_modules', file);
const CACHE = path.join(ROOT, 'node_modules/.cache');

const CHECKS: [string, string[]][] = [
  [
    'eslint',
    [bin('eslint/bin/eslint.js'), '.', '--max-warnings', '0', '--cache', '--cache-location', `${CACHE}/eslint/`],
  ],
  ['prettier', [bin('prettier/bin/prettier.cjs'), '--check', '.', '--cache', '--log-level', 'warn']],
  ['knip', [bin('knip/bin/knip.js'), '--no-progress']],
];

function run([name, args]: [string, string[]]): Promise<boolean> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      const took = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `== ${name}: ${code === 0 ? 'clean' : 'FAILED'} (${took} s)${out.trim() ? `\n${out.trimEnd()}` : ''}`,
      );
      resolve(code === 0);
    });
  });
}

void Promise.all(CHECKS.map(run)).then((passed) => process.exit(passed.every(Boolean) ? 0 : 1));
