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
  /**
   * The page served at every path with no file of its own (the shell's client-side routes): the
   * shell's app.html, since its index.html, served at /, has the landing page written in.
   */
  spa?: string;
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
const MUTABLE = /(^|\/)(index\.html|app\.html|remoteEntry\.js|mf-manifest\.json|mf-stats\.json|routes\.json)$/;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;

function filesOf(dir: string, opts: StaticServerOptions, single: string | false): RequestHandler {
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

/** The app's page, or the index.html of a build made before app.html existed (one rolled back to). */
const appPage =
  (page: RequestHandler, older: RequestHandler): Handler =>
  (req, res, next) =>
    page(req, res, () => older(req, res, next));

/**
 * A releases folder: the entry points (and the shell's page) from the live release, read at each
 * request so a deploy or a rollback shows at once; any other file, a content-hashed chunk, from
 * the live release or else the newest kept release that has it, so a page opened on an earlier
 * release keeps working after a deploy.
 */
function releasesOf(root: string, opts: StaticServerOptions): Handler {
  const handlers = new Map<string, RequestHandler>();
  const of = (id: string, single: string | false = false) => {
    const key = `${id}:${single}`;
    if (!handlers.has(key)) handlers.set(key, filesOf(path.join(root, id), opts, single));
    return handlers.get(key)!;
  };
  return (req, res, notFound) => {
    const live = liveRelease(root);
    if (!live) return notFound();
    const file = (req.url ?? '/').split('?')[0]!;
    const last = () =>
      opts.spa ? appPage(of(live, opts.spa), of(live, 'index.html'))(req, res, notFound) : notFound();
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

/**
 * What sirv may see of a Range header. sirv reads `bytes=a-b` naively: a first byte past the last
 * made fs.createReadStream throw inside the request, a suffix (`-n`) or a list of ranges is read
 * wrongly, and If-Range is ignored. A range whose first byte is past its last is invalid (RFC 9110
 * 14.1.1): 416. Anything else sirv would misread is dropped, so the whole file is sent, which the
 * RFC allows a server to do for any Range; so is a Range with If-Range, which sirv cannot compare.
 */
export function rangeFor(headers: http.IncomingHttpHeaders): 'whole' | 'keep' | 'invalid' {
  const range = headers.range;
  if (range === undefined) return 'whole';
  if (headers['if-range'] !== undefined) return 'whole';
  const single = /^bytes=(\d{1,15})-(\d{0,15})$/.exec(range.trim());
  if (!single) return 'whole';
  const [, first, last] = single;
  if (last !== '' && Number(first) > Number(last)) return 'invalid';
  return 'keep';
}

const plain = (res: http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}) => {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
  res.end(text);
};

/**
 * One request's handler, so that nothing it meets ends the process that serves every other: a
 * throw answers 500, and a file stream that fails after the headers (a release pruned while its
 * chunk is read) ends only this response.
 */
export function guarded(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void, log = console.error) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('pipe', (source: NodeJS.ReadableStream) =>
      source.on('error', (error: Error) => {
        log(`static: ${req.url}: ${error.message}`);
        res.destroy();
      }),
    );
    try {
      handle(req, res);
    } catch (error) {
      log(`static: ${req.url}: ${error instanceof Error ? error.message : String(error)}`);
      plain(res, 500, 'Internal server error');
    }
  };
}

/** A static file server for one built package, with CORS so the shell's page may load remotes. */
export function serveStatic(opts: StaticServerOptions): Promise<RunningServer> {
  const files: Handler = fs.existsSync(path.join(opts.dir, LIVE_FILE))
    ? releasesOf(opts.dir, opts)
    : opts.spa
      ? appPage(filesOf(opts.dir, opts, opts.spa), filesOf(opts.dir, opts, 'index.html'))
      : filesOf(opts.dir, opts, false);
  const server = http.createServer(
    guarded((req, res) => {
      const range = rangeFor(req.headers);
      if (range === 'invalid') return plain(res, 416, 'Range Not Satisfiable', opts.headers);
      if (range === 'whole') delete req.headers.range;
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
      files(req, res, () => plain(res, 404, 'Not found', opts.headers));
    }),
  );
  return listen(server, opts.port, opts.host ?? '127.0.0.1');
}

function listen(server: http.Server, port: number, host: string): Promise<RunningServer> {
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
