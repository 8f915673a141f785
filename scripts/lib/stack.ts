import path from 'node:path';
import { REMOTES, REMOTE_NAMES, SHELL, type RemoteName } from '../webpack/packages';
import { ROOT } from '../webpack/config';
import { runtimeConfig, type StackPorts } from './config';
import { serveStatic, type RunningServer } from './staticServer';

export interface Stack {
  shell: RunningServer;
  remotes: Record<RemoteName, RunningServer | null>;
  /** Stops one remote's server (the others and the shell keep running). */
  stopRemote: (name: RemoteName) => Promise<void>;
  /** (Re)starts one remote's server, optionally from another build folder. */
  startRemote: (name: RemoteName, dir?: string) => Promise<void>;
  close: () => Promise<void>;
}

/** Serves the built shell and every remote, each on its own port, as production would. */
export async function startFrontends(ports: StackPorts, anonKey?: string): Promise<Stack> {
  const config = runtimeConfig(ports, anonKey);
  const remotes = {} as Record<RemoteName, RunningServer | null>;
  const startRemote = async (name: RemoteName, dir?: string) => {
    await remotes[name]?.close();
    remotes[name] = await serveStatic({
      dir: dir ?? path.join(ROOT, REMOTES[name].dir, 'dist'),
      port: ports.remotes[name],
    });
  };
  const stopRemote = async (name: RemoteName) => {
    await remotes[name]?.close();
    remotes[name] = null;
  };
  for (const name of REMOTE_NAMES) await startRemote(name);
  const shell = await serveStatic({
    dir: path.join(ROOT, SHELL.dir, 'dist'),
    port: ports.shell,
    spa: true,
    documents: { '/config.json': () => config },
  });
  return {
    shell,
    remotes,
    stopRemote,
    startRemote,
    close: async () => {
      await shell.close();
      for (const name of REMOTE_NAMES) await stopRemote(name);
    },
  };
}
