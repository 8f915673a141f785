import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The backend as its own process, as `npm start` runs it (so it can really be killed); one process unless SERVER_PROCESSES says. */
export async function spawnServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'supabase/server/index.ts')], {
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
