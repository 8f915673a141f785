import fs from 'node:fs';
import path from 'node:path';
import { REMOTES, REMOTE_NAMES, SHELL, type RemoteName } from '../webpack/packages';
import { ROOT } from '../webpack/config';
import { runtimeConfig, type StackPorts } from './config';
import { securityHeaders } from './securityHeaders';
import { LIVE_FILE, releasesDir } from './releases';
import { serveStatic, type RunningServer } from './staticServer';

/** What a package is served from: its releases once one is live (npm run deploy), else its dist/. */
export function servedDir(pkg: string): string {
  const releases = releasesDir(path.join(ROOT, pkg));
  return fs.existsSync(path.join(releases, LIVE_FILE)) ? releases : path.join(ROOT, pkg, 'dist');
}

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
export async function startFrontends(
  asked: StackPorts,
  anonKey?: string,
  /** Where a package's files are: its live release or dist/ by default; tests serve dist/. */
  dirOf: (pkg: string) => string = servedDir,
): Promise<Stack> {
  const ports: StackPorts = { ...asked, remotes: { ...asked.remotes } };
  const remotes = {} as Record<RemoteName, RunningServer | null>;
  const startRemote = async (name: RemoteName, dir?: string) => {
    await remotes[name]?.close();
    const server = await serveStatic({
      dir: dir ?? dirOf(REMOTES[name].dir),
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
    dir: dirOf(SHELL.dir),
    port: ports.shell,
    spa: SHELL.appPage,
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
