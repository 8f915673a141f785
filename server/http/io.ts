import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_BODY_BYTES = 1_000_000;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message ?? body.msg ?? status));
  }
}

/** The request's body as bytes, refused past `max` bytes. */
export async function readBytes(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new HttpError(413, { code: 'PGRST102', message: 'Request body too large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString('utf8');
}

/** Parses a JSON body; an empty body is `undefined`. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, { code: 'PGRST102', message: 'Empty or invalid json', details: null, hint: null });
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

const ALLOWED_HEADERS = [
  'authorization',
  'x-client-info',
  'apikey',
  'content-type',
  'x-retry-count',
  'traceparent',
  'tracestate',
  'baggage',
  'x-supabase-api-version',
  'accept-profile',
  'content-profile',
  'prefer',
  'range',
  'range-unit',
  'accept',
  'x-upsert',
  'x-repx-wrote-ms-ago', // rest/replica.ts: read-your-writes
  'cache-control',
  'x-metadata',
].join(', ');

/** CORS for a browser app on another origin (the shell), exposing what supabase-js reads. */
export function applyCors(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader(
    'Access-Control-Expose-Headers',
    'Content-Range, X-Supabase-Api-Version, X-Total-Count, Link, Retry-After, X-Repx-Wrote, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset',
  );
  res.setHeader('Access-Control-Max-Age', '600');
}

export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m ? m[1] : undefined;
}
