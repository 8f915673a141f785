import http from 'node:http';

/**
 * A fetch for the bench's load generator: Node's http module over kept-alive sockets, answering
 * with a standard Response. The bench shares the machine with the server it measures, and Node's
 * built-in fetch (undici, with WHATWG streams) spent about twice the CPU per request (165 against
 * 80 us on a local echo at 32 in flight): CPU the server under test did not get. supabase-js takes
 * it unmodified, through its `global.fetch` option. Bodies are strings or bytes, as supabase-js sends.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** Statuses whose Response must have no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

export function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  if (typeof input !== 'string' && !(input instanceof URL)) {
    return Promise.reject(new TypeError('httpFetch takes a URL, not a Request'));
  }
  const body = init.body;
  if (body != null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
    return Promise.reject(new TypeError('httpFetch sends a string or bytes as the body'));
  }
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const method = init.method ?? 'GET';
    const req = http.request(input, { method, headers, agent, signal: init.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const answer = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const status = res.statusCode ?? 0;
        resolve(
          new Response(NULL_BODY.has(status) || method === 'HEAD' ? null : Buffer.concat(chunks), {
            status,
            statusText: res.statusMessage,
            headers: answer,
          }),
        );
      });
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}
