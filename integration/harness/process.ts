import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './ports';
import { startBackend, type Backend, type BackendOptions } from '../../server/index';
import { throwAwayStorage, type Engine } from './backends';
import { JWT_SECRET } from './clients';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The backend as its own process, as `npm start` runs it (so it can really be killed); one process
 * unless SERVER_PROCESSES says; on this Node, or on `node` (a benchmark comparing Node versions).
 */
export async function spawnServer(env: Record<string, string>, node = process.execPath): Promise<ChildProcess> {
  const child = spawn(node, ['--import', 'tsx', path.join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, SERVER_PROCESSES: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('backend on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  child.removeAllListeners('exit');
  return child;
}

export async function stopServer(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/**
 * Throw-away storage on `engine` for a server a test kills and restarts: the spawned server's
 * environment and URL (`extraEnv` added), and `open` for an in-process backend on the same data
 * (to prepare it before, or to check it after).
 */
export async function crashableServer(engine: Engine, prefix: string, extraEnv: Record<string, string> = {}) {
  const port = await freePort();
  const store = await throwAwayStorage(engine, prefix);
  return {
    url: `http://localhost:${port}`,
    env: { SUPABASE_PORT: String(port), ...store.env, JWT_SECRET, RATE_LIMITS: 'off', ...extraEnv },
    open: (extra: BackendOptions = {}): Promise<Backend> =>
      startBackend({ port: 0, ...store.options, jwtSecret: JWT_SECRET, ...extra }),
    cleanup: store.cleanup,
  };
}
