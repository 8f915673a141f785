import http from 'node:http';
import { DatabaseUnavailable, type Database } from './db/database';
import { HttpError, applyCors, bearer, readJson, sendEmpty, sendJson } from './http/io';
import { authRoutes } from './auth/routes';
import { PasswordHasher } from './auth/passwords';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './http/rateLimit';
import { JwtKeys, type Claims } from './auth/jwt';
import { mayUseTopic } from './realtime/authorize';
import type { AuthSettings } from './auth/sessions';
import { Catalog } from './rest/catalog';
import { restRoutes, type RequestIdentity } from './rest/routes';
import { restError } from './rest/errors';
import { storageRoutes } from './storage/routes';

export interface AppOptions {
  db: Database;
  jwtSecret: string;
  jwtExpiry: number;
  passwordMinLength: number;
  /** Seconds after which an unused session ends (0: never). */
  sessionInactivity: number;
  /** The URL clients use, for the JWT issuer. */
  publicUrl: string;
  rateLimits?: RateLimits;
  log?: (line: string) => void;
}

const API_ROLES = new Set(['anon', 'authenticated', 'service_role']);

/** One HTTP server for /auth/v1 and /rest/v1, as the Supabase gateway routes them. */
export async function createApp(opts: AppOptions) {
  const keys = new JwtKeys(opts.jwtSecret);
  const settings: AuthSettings = {
    keys,
    jwtExpiry: opts.jwtExpiry,
    passwordMinLength: opts.passwordMinLength,
    sessionInactivity: opts.sessionInactivity,
    issuer: `${opts.publicUrl}/auth/v1`,
  };
  // The schema cache, read at start and again on PostgREST's notice (NOTIFY pgrst, 'reload schema'),
  // which migrations and the Supabase CLI send after changing the schema.
  let catalog = await Catalog.load(opts.db);
  const unlistenSchema = await opts.db.listen('pgrst', (payload) => {
    if (payload !== 'reload schema' && payload !== '') return;
    Catalog.load(opts.db)
      .then((fresh) => {
        catalog = fresh;
      })
      .catch((error: unknown) =>
        opts.log?.(`error schema reload: ${error instanceof Error ? error.message : String(error)}`),
      );
  });
  const passwords = new PasswordHasher();
  const auth = authRoutes(opts.db, settings, passwords, opts.rateLimits ?? DEFAULT_RATE_LIMITS, opts.log);
  const rest = restRoutes(opts.db, () => catalog, opts.log);
  const storage = storageRoutes(opts.db);

  /** The gateway's check: every request carries a valid project key (anon or service_role). */
  async function checkApiKey(req: http.IncomingMessage, url: URL): Promise<void> {
    const key = (req.headers.apikey as string | undefined) ?? url.searchParams.get('apikey') ?? undefined;
    if (!key)
      throw new HttpError(401, {
        message: 'No API key found in request',
        hint: 'No `apikey` request header or url param was found.',
      });
    const verified = await keys.verify(key);
    if (!verified.ok || !API_ROLES.has(verified.claims.role) || verified.claims.role === 'authenticated') {
      throw new HttpError(401, {
        message: 'Invalid API key',
        hint: 'Double check your Supabase `anon` or `service_role` API key.',
      });
    }
  }

  /** PostgREST's rule: the role and claims come from the Authorization bearer JWT; none means anon. */
  async function identify(req: http.IncomingMessage): Promise<RequestIdentity> {
    const token = bearer(req);
    if (!token) return { role: 'anon', claims: { role: 'anon' } };
    const verified = await keys.verify(token);
    if (!verified.ok) {
      throw new HttpError(
        401,
        verified.reason === 'expired'
          ? { code: 'PGRST303', details: null, hint: null, message: 'JWT expired' }
          : { code: 'PGRST301', details: null, hint: null, message: 'JWT could not be decoded or verified' },
        {
          'WWW-Authenticate': `Bearer error="invalid_token", error_description="${verified.reason === 'expired' ? 'JWT expired' : 'JWT invalid'}"`,
        },
      );
    }
    if (!API_ROLES.has(verified.claims.role)) {
      throw restError(401, '22023', `role "${verified.claims.role}" does not exist`);
    }
    return { role: verified.claims.role, claims: verified.claims };
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    applyCors(req, res);
    if (req.method === 'OPTIONS') return sendEmpty(res, 204);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/realtime/v1/api/broadcast')) return httpBroadcast(req, res, url);
    const m = /^\/(auth|rest|storage)\/v1(\/.*)?$/.exec(url.pathname);
    if (!m) {
      if (url.pathname === '/' || url.pathname === '/health')
        return sendJson(res, 200, { status: 'ok', database: opts.db.kind });
      throw new HttpError(404, { message: `No route ${url.pathname}` });
    }
    const path = m[2] ?? '/';
    // A public image is fetched by an <img>, with no API key, as from Supabase's storage CDN.
    if (m[1] === 'storage' && storage.isPublicRead(req.method, path))
      return storage.handle(req, res, path, { role: 'anon', claims: { role: 'anon' } });
    await checkApiKey(req, url);
    if (m[1] === 'auth') return auth(req, res, path, url);
    if (m[1] === 'storage') return storage.handle(req, res, path, await identify(req));
    return rest(req, res, path, url, await identify(req));
  }

  /** Realtime's REST broadcast (channel.httpSend, or send() before joining): relayed to the topic's members. */
  let broadcaster: ((topic: string, event: string, payload: unknown) => void) | null = null;
  async function httpBroadcast(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    await checkApiKey(req, url);
    const who = await identify(req);
    if (req.method !== 'POST') throw new HttpError(405, { message: 'Use POST.' });
    const messages: { topic: string; event: string; payload: unknown; private?: boolean }[] = [];
    const one = /^\/realtime\/v1\/api\/broadcast\/([^/]+)\/events\/([^/]+)$/.exec(url.pathname);
    const body = await readJson(req);
    if (one)
      messages.push({
        topic: decodeURIComponent(one[1]!),
        event: decodeURIComponent(one[2]!),
        payload: body,
        private: url.searchParams.get('private') === 'true',
      });
    else if (
      url.pathname === '/realtime/v1/api/broadcast' &&
      Array.isArray((body as { messages?: unknown })?.messages)
    ) {
      messages.push(...(body as { messages: typeof messages }).messages);
    } else {
      throw new HttpError(400, { message: 'Expected /api/broadcast/<topic>/events/<event> or a body of messages.' });
    }
    if (who.role === 'anon') throw new HttpError(401, { message: 'Sign in to broadcast.' });
    for (const m of messages) {
      if (m.private && !(await mayUseTopic(opts.db, who.claims as Claims, m.topic, 'write'))) {
        throw new HttpError(403, {
          message: `Unauthorized: You do not have permissions to write to this Channel topic: ${m.topic}`,
        });
      }
    }
    for (const m of messages) broadcaster?.(`realtime:${m.topic}`, String(m.event), m.payload);
    sendEmpty(res, 202);
  }

  const server = http.createServer((req, res) => {
    const started = Date.now();
    route(req, res)
      .catch((error: unknown) => {
        if (error instanceof HttpError) return sendJson(res, error.status, error.body, error.headers);
        if (error instanceof DatabaseUnavailable) {
          opts.log?.(`error ${req.method} ${req.url}: database unavailable (${String(error.cause)})`);
          const body = { code: 'PGRST001', details: null, hint: null, message: error.message };
          return sendJson(res, 503, body, { 'Retry-After': '1' });
        }
        opts.log?.(`error ${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`);
        sendJson(res, 500, { code: 'XX000', details: null, hint: null, message: 'Internal server error' });
      })
      .finally(() => opts.log?.(`${req.method} ${req.url} ${res.statusCode} ${Date.now() - started}ms`));
  });

  return {
    server,
    keys,
    /** Realtime attaches after the app: it hands over how to relay a broadcast. */
    useBroadcaster: (fn: (topic: string, event: string, payload: unknown) => void) => {
      broadcaster = fn;
    },
    close: async () => {
      await unlistenSchema();
      await passwords.close();
    },
  };
}
