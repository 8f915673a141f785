import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { swcOptions } from '../swc.cjs';
import { backendFor, type Engine } from '../../integration/harness/backends';
import { DEFAULT_RATE_LIMITS } from '../../server/http/rateLimit';

/*
 * Runs supabase-js's own integration test (packages/core/supabase-js/test/integration.test.ts in
 * the public repository) against the local server with confirmations off, on PGlite and on
 * PostgreSQL, as supabase-js's CI runs it against `supabase start`: its fixtures applied, the
 * CLI's demo keys, port 54321. The test and its fixtures are read from a checkout named on the
 * command line and copied to a scratch folder; none of them is kept in this repository.
 *
 *   npm run test:supabase-js -- /path/to/supabase-js [pglite|postgres]
 */

const ROOT = path.resolve(__dirname, '../..');
const [checkout, only] = process.argv.slice(2);
if (!checkout) throw new Error('usage: npm run test:supabase-js -- /path/to/supabase-js [pglite|postgres]');
const PACKAGE = path.join(path.resolve(checkout), 'packages/core/supabase-js');
const TEST = path.join(PACKAGE, 'test/integration.test.ts');
if (!fs.existsSync(TEST)) throw new Error(`${TEST} is missing: name a checkout of github.com/supabase/supabase-js`);

/** The scratch folder: the test, shims for its `../src` imports, and the packages it needs besides supabase-js. */
function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-supabase-js-'));
  fs.mkdirSync(path.join(dir, 'test'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.copyFileSync(TEST, path.join(dir, 'test/integration.test.ts'));
  // The test imports the package's source; the published package (RepX's own copy) stands in for it.
  fs.writeFileSync(path.join(dir, 'src/index.ts'), "export * from '@supabase/supabase-js';\n");
  fs.writeFileSync(path.join(dir, 'src/tracing.ts'), "import '@supabase/supabase-js/tracing';\n");
  const wanted = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const source = fs.readFileSync(TEST, 'utf8');
  const needed = Object.entries(wanted.devDependencies)
    .filter(([name]) => !name.startsWith('@supabase/') && source.includes(`'${name}'`))
    .map(([name, range]) => `${name}@${range}`);
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', ...needed], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (install.status !== 0) throw new Error(`npm install ${needed.join(' ')} failed`);
  return dir;
}

/** supabase-js's fixtures (migrations, then seed) on the backend's database. */
async function applyFixtures(db: { exec(sql: string): Promise<void> }) {
  const folders = ['supabase/migrations', 'supabase/seed'].map((f) => path.join(PACKAGE, f));
  for (const folder of folders.filter((f) => fs.existsSync(f)))
    for (const file of fs
      .readdirSync(folder)
      .filter((f) => f.endsWith('.sql'))
      .sort())
      await db.exec(fs.readFileSync(path.join(folder, file), 'utf8'));
  await db.exec("notify pgrst, 'reload schema'");
}

interface JestResult {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTests: number;
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

async function runOn(engine: Engine, dir: string): Promise<JestResult> {
  const backend = await backendFor(engine, {
    port: 54321,
    emailConfirmations: false,
    rateLimits: DEFAULT_RATE_LIMITS,
  })();
  try {
    await applyFixtures(backend.db);
    const config = {
      rootDir: dir,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/integration.test.ts'],
      modulePaths: [path.join(dir, 'node_modules'), path.join(ROOT, 'node_modules')],
      transform: {
        '^.+\\.ts$': [require.resolve('@swc/jest'), swcOptions('commonjs')],
      },
      testTimeout: 30_000,
    };
    const out = path.join(dir, `result-${engine}.json`);
    // Not spawnSync: the server answering the test runs in this process.
    const jest = spawn(
      process.execPath,
      [
        require.resolve('jest/bin/jest'),
        '--config',
        JSON.stringify(config),
        '--json',
        '--outputFile',
        out,
        '--forceExit',
      ],
      { cwd: dir, stdio: 'inherit' },
    );
    await once(jest, 'exit');
    return JSON.parse(fs.readFileSync(out, 'utf8')) as JestResult;
  } finally {
    await backend.close();
  }
}

async function main() {
  const dir = scratch();
  const engines: Engine[] = only ? [only as Engine] : ['pglite', 'postgres'];
  const summary: string[] = [];
  let failed = 0;
  for (const engine of engines) {
    const result = await runOn(engine, dir);
    summary.push(`${engine}: ${result.numPassedTests} of ${result.numTotalTests} passed`);
    // A test the file itself skips (test.skip) is reported as pending, and is not a failure.
    for (const test of result.testResults.flatMap((r) => r.assertionResults).filter((t) => t.status !== 'passed'))
      summary.push(`  ${test.status}: ${test.fullName}`);
    failed += result.numFailedTests;
  }
  console.log(`\nsupabase-js integration test (${TEST})\n${summary.join('\n')}`);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(failed > 0 ? 1 : 0);
}

void main();
