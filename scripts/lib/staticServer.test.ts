/** @jest-environment node */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { HOSTILE_REQUESTS, rawRequest } from './hostileRequests';
import { goLive } from './releases';
import { rangeFor, serveStatic, type RunningServer } from './staticServer';

const ENTRY = 'var remote = "0123456789";\n';

describe('the static server', () => {
  let root: string;
  const servers: RunningServer[] = [];
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-static-'));
    for (const dir of [path.join(root, 'dist'), path.join(root, 'releases', '20261127T000000000Z-a')]) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'remoteEntry.js'), ENTRY);
      fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>shell</title>');
    }
    goLive(path.join(root, 'releases'), '20261127T000000000Z-a');
    fs.mkdirSync(path.join(root, 'shell'));
    fs.writeFileSync(path.join(root, 'shell', 'index.html'), 'landing');
    fs.writeFileSync(path.join(root, 'shell', 'app.html'), 'app');
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const start = async (dir: string, spa?: string) => {
    const server = await serveStatic({ dir: path.join(root, dir), port: 0, spa });
    servers.push(server);
    return server;
  };

  it('answers 416 to a range whose first byte is past its last, and serves good ranges', async () => {
    const server = await start('dist');
    const get = (range: string, extra: Record<string, string> = {}) =>
      fetch(`${server.url}/remoteEntry.js`, { headers: { range, ...extra } });
    expect((await get('bytes=5-1')).status).toBe(416);
    const part = await get('bytes=14-19');
    expect(part.status).toBe(206);
    expect(await part.text()).toBe(ENTRY.slice(14, 20));
    expect((await get(`bytes=${ENTRY.length}-`)).status).toBe(416);
    // What sirv would misread is ignored, and the whole file sent, as RFC 9110 allows.
    for (const range of ['bytes=-5', 'bytes=0-1,3-4', 'bytes=abc', 'items=0-1']) {
      const whole = await get(range);
      expect([range, whole.status, await whole.text()]).toEqual([range, 200, ENTRY]);
    }
    const ifRange = await get('bytes=0-3', { 'if-range': '"an old etag"' });
    expect([ifRange.status, await ifRange.text()]).toEqual([200, ENTRY]);
  });

  it.each(['dist', 'releases'])('keeps answering every hostile request (%s)', async (dir) => {
    for (const spa of [undefined, 'app.html']) {
      const server = await start(dir, spa);
      for (const { what, path: p, headers } of HOSTILE_REQUESTS) {
        const status = await rawRequest(server.port, p, headers);
        expect([what, status >= 200 && status < 500]).toEqual([what, true]);
      }
      expect((await fetch(`${server.url}/remoteEntry.js`)).status).toBe(200);
    }
  });

  it("serves the landing page at / and the app's page at every route, revalidated", async () => {
    const server = await start('shell', 'app.html');
    const page = async (p: string) => {
      const res = await fetch(`${server.url}${p}`);
      return [p, res.status, await res.text(), res.headers.get('cache-control')];
    };
    expect(await page('/')).toEqual(['/', 200, 'landing', 'no-cache']);
    for (const p of ['/dashboard', '/trade/abc', '/auth']) expect(await page(p)).toEqual([p, 200, 'app', 'no-cache']);
    // A build made before app.html (a release rolled back to) answers a route with its index.html.
    for (const dir of ['dist', 'releases']) {
      const older = await start(dir, 'app.html');
      expect([dir, await (await fetch(`${older.url}/dashboard`)).text()]).toEqual([
        dir,
        expect.stringContaining('shell'),
      ]);
    }
  });

  it('tells the range it will keep from the ones it drops or refuses', () => {
    expect(rangeFor({})).toBe('whole');
    expect(rangeFor({ range: 'bytes=0-' })).toBe('keep');
    expect(rangeFor({ range: 'bytes=3-3' })).toBe('keep');
    expect(rangeFor({ range: 'bytes=4-3' })).toBe('invalid');
    expect(rangeFor({ range: 'bytes=4-3', 'if-range': 'W/"x"' })).toBe('whole');
    expect(rangeFor({ range: 'bytes=-3' })).toBe('whole');
  });
});

describe("a request's handler that fails", () => {
  it('answers 500 to a throw and ends only the response whose file stream fails', async () => {
    // The guard is the server's; a handler that throws or pipes a failing stream stands for sirv meeting a fault.
    const { guarded } = await import('./staticServer');
    const server = http.createServer(
      guarded(
        (req, res) => {
          if (req.url === '/throw') throw new Error('boom');
          if (req.url === '/stream') {
            res.writeHead(200, { 'content-length': '100' });
            const failing = new Readable({ read() {} });
            failing.pipe(res);
            setImmediate(() => failing.destroy(new Error('ENOENT: the release was pruned')));
            return;
          }
          res.end('fine');
        },
        () => {},
      ),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      expect(await rawRequest(port, '/throw', {})).toBe(500);
      await expect(fetch(`http://127.0.0.1:${port}/stream`).then((r) => r.text())).rejects.toThrow();
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('fine');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
