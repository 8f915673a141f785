import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../integration/harness/ports';
import { HOSTILE_REQUESTS, rawRequest } from '../scripts/lib/hostileRequests';
import { ROOT } from '../scripts/webpack/config';
import { REMOTES, REMOTE_NAMES } from '../scripts/webpack/packages';

jest.setTimeout(180_000);

/**
 * `npm start` as a person runs it (SKIP_BUILD: the build under test), on free ports and a fresh
 * data folder: no request to a static server can stop what it did not ask for, and the backend,
 * in a process of its own, comes back when it dies while the pages stay up.
 */
describe('npm start', () => {
  let app: ChildProcess;
  let dataDir: string;
  let out = '';
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-start-'));
    for (const name of ['SHELL_PORT', 'SUPABASE_PORT', ...REMOTE_NAMES.map((n) => `${n.toUpperCase()}_PORT`)])
      ports[name] = await freePort();
    app = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        SKIP_BUILD: 'true',
        DATA_DIR: path.join(dataDir, 'pglite'),
        DATABASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    app.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    app.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(
      () => out.includes('Press Ctrl+C to stop.'),
      150_000,
      () => out,
    );
  });

  afterAll(async () => {
    if (app.exitCode === null) {
      const exited = new Promise((r) => app.once('exit', r));
      app.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const staticPorts = () => [ports.SHELL_PORT!, ...REMOTE_NAMES.map((n) => ports[`${n.toUpperCase()}_PORT`]!)];
  // Any answer of the backend's own (without a key, auth asks for one): it listens and serves.
  const backendAnswers = async () =>
    (await fetch(`http://127.0.0.1:${ports.SUPABASE_PORT}/auth/v1/settings`).catch(() => null))?.status === 401;

  it('keeps every port answering after hostile requests to every static port', async () => {
    for (const port of staticPorts()) {
      for (const { what, path: p, headers } of HOSTILE_REQUESTS) {
        const status = await rawRequest(port, p, headers);
        expect([port, what, status > 0 && status < 500]).toEqual([port, what, true]);
      }
    }
    for (const port of staticPorts()) expect((await fetch(`http://127.0.0.1:${port}/mf-manifest.json`)).ok).toBe(true);
    expect(await backendAnswers()).toBe(true);
    expect(app.exitCode).toBeNull();
    // The remote an attacker would pick: the trading page's entry, asked for with a reversed range.
    expect(await rawRequest(ports.TRADING_PORT!, '/remoteEntry.js', { Range: 'bytes=5-1' })).toBe(416);
    expect(REMOTES.trading.dir).toBe('mf-trading');
  });

  it('runs the backend in its own process, started again when it dies, while the pages stay up', async () => {
    const pid = Number(/process (\d+)\)/.exec(out)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(app.pid);
    process.kill(pid, 'SIGKILL');
    await waitFor(async () => !(await backendAnswers()), 10_000);
    for (const port of staticPorts()) expect((await fetch(`http://127.0.0.1:${port}/mf-manifest.json`)).ok).toBe(true);
    await waitFor(backendAnswers, 60_000, () => out);
    expect(out).toContain('The backend stopped (SIGKILL); starting it again');
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, say: () => string = () => '') {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out: ${say()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
