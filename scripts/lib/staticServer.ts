import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sirv, { type RequestHandler } from 'sirv';
import { LIVE_FILE, liveRelease, releaseIds } from './releases';

export interface StaticServerOptions {
  /** A build folder, or a package's releases folder (one with a LIVE file: lib/releases.ts). */
  dir: string;
  port: number;
  host?: string;
  /** Serve index.html for unknown paths (the shell's client-side routes). */
  spa?: boolean;
  /** Extra JSON documents served at fixed paths, e.g. /config.json. */
  documents?: Record<string, () => unknown>;
  /** Headers sent with every answer (the shell's security headers). */
  headers?: Record<string, string>;
}

export interface RunningServer {
  url: string;
  port: number;
  close: () => Promise<void>;
}

/** Files whose name never changes must be revalidated, so a redeployed remote shows on reload. */
const MUTABLE = /(^|\/)(index\.html|remoteEntry\.js|mf-manifest\.json|mf-stats\.json|routes\.json)$/;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;

function filesOf(dir: string, opts: StaticServerOptions, single: boolean): RequestHandler {
  return sirv(dir, {
    single,
    dev: true, // look files up per request, so a remote rebuilt in place is served at once
    etag: true,
    // The build writes .br and .gz beside each asset: sent as the browser accepts, never compressed per request.
    brotli: true,
    gzip: true,
    setHeaders(res, pathname) {
      for (const [name, value] of Object.entries(opts.headers ?? {})) res.setHeader(name, value);
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader(
        'Cache-Control',
        MUTABLE.test(pathname) || opts.spa ? 'no-cache' : 'public, max-age=31536000, immutable',
      );
    },
  });
}

/**
 * A releases folder: the entry points (and the shell's page) from the live release, read at each
 * request so a deploy or a rollback shows at once; any other file, a content-hashed chunk, from
 * the live release or else the newest kept release that has it, so a page opened on an earlier
 * release keeps working after a deploy.
 */
function releasesOf(root: string, opts: StaticServerOptions): Handler {
  const handlers = new Map<string, RequestHandler>();
  const of = (id: string, single = false) => {
    const key = `${id}:${single}`;
    if (!handlers.has(key)) handlers.set(key, filesOf(path.join(root, id), opts, single));
    return handlers.get(key)!;
  };
  return (req, res, notFound) => {
    const live = liveRelease(root);
    if (!live) return notFound();
    const file = (req.url ?? '/').split('?')[0]!;
    const last = () => (opts.spa ? of(live, true)(req, res, notFound) : notFound());
    // The kept releases are listed only when the live one lacks the file (a page older than it).
    const older = () => {
      const ids = MUTABLE.test(file)
        ? []
        : releaseIds(root)
            .reverse()
            .filter((id) => id !== live);
      const attempt = (i: number): void => (i < ids.length ? of(ids[i]!)(req, res, () => attempt(i + 1)) : last());
      attempt(0);
    };
    of(live)(req, res, older);
  };
}

/** A static file server for one built package, with CORS so the shell's page may load remotes. */
export function serveStatic(opts: StaticServerOptions): Promise<RunningServer> {
  const files: Handler = fs.existsSync(path.join(opts.dir, LIVE_FILE))
    ? releasesOf(opts.dir, opts)
    : filesOf(opts.dir, opts, opts.spa ?? false);
  const server = http.createServer((req, res) => {
    const doc = opts.documents?.[(req.url ?? '/').split('?')[0]!];
    if (doc) {
      res.writeHead(200, {
        ...opts.headers,
        'Content-Type': 'application/json',
        'Cache-Control': 'no-store',
        'Access-Control-Allow-Origin': '*',
      });
      res.end(JSON.stringify(doc()));
      return;
    }
    files(req, res, () => {
      res.writeHead(404, { ...opts.headers, 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
      res.end('Not found');
    });
  });
  return listen(server, opts.port, opts.host ?? '127.0.0.1');
}

export function listen(server: http.Server, port: number, host: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      resolve({
        url: `http://localhost:${actual}`,
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
