/** @jest-environment node */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpFetch } from './httpFetch';

describe('httpFetch, the bench load generator transport', () => {
  let server: http.Server;
  let base: string;
  const seen: { method?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        if (req.url === '/empty') return res.writeHead(204).end();
        if (req.url === '/slow') return; // never answers
        res.writeHead(req.url === '/missing' ? 404 : 200, 'Fine', [
          ['content-type', 'application/json'],
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ]);
        res.end(JSON.stringify({ echo: body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends the method, headers and body, and answers with status, headers and body', async () => {
    const res = await httpFetch(`${base}/rpc`, {
      method: 'POST',
      headers: new Headers({ Authorization: 'Bearer t', 'Content-Type': 'application/json' }),
      body: '{"p_limit":1}',
    });
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"p_limit":1}',
    });
    expect({ ok: res.ok, status: res.status, statusText: res.statusText }).toEqual({
      ok: true,
      status: 200,
      statusText: 'Fine',
    });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.json()).toEqual({ echo: '{"p_limit":1}' });
  });

  it('answers an error status as a response, and 204 or HEAD with no body', async () => {
    const missing = await httpFetch(new URL(`${base}/missing`), { headers: { apikey: 'k' } });
    expect({ ok: missing.ok, status: missing.status }).toEqual({ ok: false, status: 404 });
    expect(seen.at(-1)!.headers.apikey).toBe('k');
    const empty = await httpFetch(`${base}/empty`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
    const head = await httpFetch(`${base}/rpc`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('rejects when the request is aborted, the server cannot be reached, or the input is not a URL', async () => {
    await expect(httpFetch(`${base}/slow`, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(httpFetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(httpFetch(new Request(`${base}/rpc`))).rejects.toThrow('httpFetch takes a URL, not a Request');
    await expect(httpFetch(`${base}/rpc`, { method: 'POST', body: new Blob(['x']) })).rejects.toThrow(
      'httpFetch sends a string or bytes as the body',
    );
  });
});
