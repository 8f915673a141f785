import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { isReady, type Ready } from '../../server/cluster';

const MAIN = path.resolve(__dirname, '../../server/main.ts');

/**
 * Starts the backend (server/main.ts) in a process of its own with `env` added: `ready`
 * resolves with what it said once it listens (its URL, engine and anon key); `onExit` hears of an
 * exit after that. The child is returned at once, so a Ctrl+C while it starts stops it too.
 */
export function startBackendProcess(
  env: Record<string, string>,
  onExit: (code: number | null, signal: string | null) => void = () => undefined,
) {
  const child: ChildProcess = fork(MAIN, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise<Ready>((resolve, reject) => {
    const early = (code: number | null) => reject(new Error(`The backend stopped before it listened (exit ${code}).`));
    child.once('exit', early);
    child.on('message', (message: unknown) => {
      if (!isReady(message)) return;
      child.off('exit', early);
      child.once('exit', onExit);
      resolve(message);
    });
  });
  return { child, ready };
}

export const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Ends a backend process and waits for it. */
export async function stopBackendProcess(child: ChildProcess): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
