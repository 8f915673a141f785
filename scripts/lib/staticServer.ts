import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';

export interface StaticServerOptions {
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

/** A static file server for one built package, with CORS so the shell's page may load remotes. */
export function serveStatic(opts: StaticServerOptions): Promise<RunningServer> {
  const files = sirv(opts.dir, {
    single: opts.spa ?? false,
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
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const doc = opts.documents?.[path];
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
