import path from 'node:path';
import { REMOTES, REMOTE_NAMES, SHELL, type RemoteName } from '../webpack/packages';
import { ROOT } from '../webpack/config';
import { runtimeConfig, type StackPorts } from './config';
import { securityHeaders } from './securityHeaders';
import { serveStatic, type RunningServer } from './staticServer';

export interface Stack {
  shell: RunningServer;
  remotes: Record<RemoteName, RunningServer | null>;
  /** The ports the servers listen on (a port asked as 0 is the free one it got). */
  ports: StackPorts;
  /** Stops one remote's server (the others and the shell keep running). */
  stopRemote: (name: RemoteName) => Promise<void>;
  /** (Re)starts one remote's server on its port, optionally from another build folder. */
  startRemote: (name: RemoteName, dir?: string) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Serves the built shell and every remote, each on its own port, as production would. A port of
 * 0 takes a free one when the server starts (no other process can take it between choosing and
 * listening, as with tests running side by side); the shell's config names the ports taken.
 */
export async function startFrontends(asked: StackPorts, anonKey?: string): Promise<Stack> {
  const ports: StackPorts = { ...asked, remotes: { ...asked.remotes } };
  const remotes = {} as Record<RemoteName, RunningServer | null>;
  const startRemote = async (name: RemoteName, dir?: string) => {
    await remotes[name]?.close();
    const server = await serveStatic({
      dir: dir ?? path.join(ROOT, REMOTES[name].dir, 'dist'),
      port: ports.remotes[name],
    });
    remotes[name] = server;
    ports.remotes[name] = server.port;
  };
  const stopRemote = async (name: RemoteName) => {
    await remotes[name]?.close();
    remotes[name] = null;
  };
  for (const name of REMOTE_NAMES) await startRemote(name);
  const config = runtimeConfig(ports, anonKey);
  const shell = await serveStatic({
    dir: path.join(ROOT, SHELL.dir, 'dist'),
    port: ports.shell,
    spa: true,
    documents: { '/config.json': () => config },
    headers: securityHeaders(config),
  });
  ports.shell = shell.port;
  return {
    shell,
    remotes,
    ports,
    stopRemote,
    startRemote,
    close: async () => {
      await shell.close();
      for (const name of REMOTE_NAMES) await stopRemote(name);
    },
  };
}
