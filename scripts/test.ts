/**
 * npm test: type-checks, lints, builds every package for production, then runs jest's unit and
 * integration projects (a jest worker more than there are CPUs), then the end-to-end project.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { env } from '../server/env';

const ROOT = path.resolve(__dirname, '..');
const JEST = path.join(ROOT, 'node_modules/jest/bin/jest.js');

function run(label: string, command: string, args: string[]): void {
  console.log(`\n== ${label}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    console.error(`\n${label} failed`);
    process.exit(result.status ?? 1);
  }
}

const extra = process.argv.slice(2);
run('type check', process.execPath, [
  path.join(ROOT, 'node_modules/typescript/bin/tsc'),
  '-p',
  'tsconfig.json',
  '--noEmit',
]);
// ESLint, Prettier's check and knip, side by side (scripts/lint.ts).
run('lint', process.execPath, ['--import', 'tsx', 'scripts/lint.ts']);
if (!env().SKIP_BUILD) run('build', process.execPath, ['--import', 'tsx', 'scripts/build.ts']);
// PGlite loads its WebAssembly with dynamic import(), which jest's sandbox allows only with this flag.
// --forceExit: a server left by a failed hook must not hang CI; the failure itself is still reported.
// One worker more than there are CPUs: jest's default on two CPUs is one, but an integration file
// waits on its PostgreSQL server, its HTTP clients and its timers for much of its time.
const workers = os.availableParallelism() + 1;
run('unit and integration tests', process.execPath, [
  '--experimental-vm-modules',
  JEST,
  '--selectProjects',
  'unit',
  'integration',
  '--forceExit',
  `--maxWorkers=${workers}`,
  ...extra,
]);
// Each e2e file starts its own database, seven servers and Chromium on free ports: Chromium keeps
// the CPUs busy, and a third worker on two CPUs only made each file slower.
run('end-to-end tests', process.execPath, [
  '--experimental-vm-modules',
  JEST,
  '--selectProjects',
  'e2e',
  `--maxWorkers=${Math.max(2, os.availableParallelism() - 1)}`,
  '--forceExit',
  ...extra,
]);
