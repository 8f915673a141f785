import http from 'node:http';
import { DatabaseUnavailable, type Database } from './db/database';
import { HttpError, applyCors, bearer, sendEmpty, sendJson } from './http/io';
import { httpErrorOf } from './http/errors';
import { authRoutes } from './auth/routes';
import { PasswordHasher } from './auth/passwords';
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimits } from './http/rateLimit';
import type { JwtKeys } from './auth/jwt';
import { ApiKeys } from './auth/apiKeys';
import { ApiQuota } from './http/apiQuota';
import { API_ROLES, identifier } from './auth/identify';
import type { AuthSettings } from './auth/sessions';
import { Catalog } from './rest/catalog';
import { restRoutes, type RequestIdentity } from './rest/routes';
import { storageRoutes } from './storage/routes';
import type { ObjectBytes } from './storage/objects';
import type { Replica } from './db/replica';

/** Realtime's REST endpoint (realtime/broadcast.ts), served here with the other HTTP protocols. */
type RealtimeHttp = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  who: RequestIdentity,
) => Promise<void>;

export interface AppOptions {
  db: Database;
  keys: JwtKeys;
  realtime: RealtimeHttp;
  /** Where storage objects' bytes live (storage/objects.ts). */
  objectBytes: ObjectBytes;
  jwtExpiry: number;
  passwordMinLength: number;
  /** bcrypt's cost for new password hashes (auth/passwords.ts); BCRYPT_COST unless a test suite lowers it. */
  passwordHashCost?: number;
  emailConfirmations: boolean;
  siteUrl: string;
  /** Seconds after which an unused session ends (0: never). */
  sessionInactivity: number;
  /** The URL clients use, for the JWT issuer. */
  publicUrl: string;
  /** [api] max_rows: where the REST API's estimated counts stop counting. */
  maxRows?: number;
  rateLimits?: RateLimits;
  /** The process's figures for GET /metrics (metrics.ts). */
  metrics?: () => string;
  /** A streaming replica for the reads that tolerate its lag (rest/replica.ts). */
  replica?: Replica;
  /** API keys' lookup (shared with Realtime, which accepts them as access tokens). */
  apiKeys?: ApiKeys;
  log?: (line: string) => void;
}

/**
 * One HTTP server for Supabase's HTTP protocols, as its gateway routes them: /auth/v1, /rest/v1,
 * /storage/v1 and Realtime's /realtime/v1/api, each its own module.
 */
export async function createApp(opts: AppOptions) {
  const keys = opts.keys;
  const settings: AuthSettings = {
    keys,
    jwtExpiry: opts.jwtExpiry,
    passwordMinLength: opts.passwordMinLength,
    emailConfirmations: opts.emailConfirmations,
    siteUrl: opts.siteUrl,
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
  const passwords = new PasswordHasher(opts.passwordHashCost);
  const auth = authRoutes(opts.db, settings, passwords, opts.rateLimits ?? DEFAULT_RATE_LIMITS, opts.log);
  const rest = restRoutes(opts.db, () => catalog, opts, opts.replica);
  const limits = opts.rateLimits ?? DEFAULT_RATE_LIMITS;
  const identify = identifier(keys, opts.apiKeys ?? new ApiKeys(opts.db), new ApiQuota(opts.db, limits));
  const storage = storageRoutes(
    opts.db,
    opts.objectBytes,
    new RateLimiter(opts.db, 'upload', limits.upload.capacity, limits.upload.perSeconds),
  );

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

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    applyCors(req, res);
    if (req.method === 'OPTIONS') return sendEmpty(res, 204);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/realtime/v1/api/')) {
      await checkApiKey(req, url);
      return opts.realtime(req, res, url, await identify(req, res));
    }
    const m = /^\/(auth|rest|storage)\/v1(\/.*)?$/.exec(url.pathname);
    if (!m) {
      if (url.pathname === '/' || url.pathname === '/health')
        return sendJson(res, 200, { status: 'ok', database: opts.db.kind });
      if (url.pathname === '/metrics' && opts.metrics) {
        const key = bearer(req) ?? (req.headers.apikey as string | undefined) ?? '';
        const verified = await keys.verify(key);
        if (!verified.ok || verified.claims.role !== 'service_role')
          throw new HttpError(401, { message: 'The metrics need the service role key.' });
        res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4', 'Cache-Control': 'no-store' });
        return void res.end(opts.metrics());
      }
      throw new HttpError(404, { message: `No route ${url.pathname}` });
    }
    const path = m[2] ?? '/';
    // A public image is fetched by an <img>, with no API key, as from Supabase's storage CDN.
    if (m[1] === 'storage' && storage.isPublicRead(req.method, path))
      return storage.handle(req, res, path, { role: 'anon', claims: { role: 'anon' } });
    await checkApiKey(req, url);
    if (m[1] === 'auth') return auth(req, res, path, url);
    if (m[1] === 'storage') return storage.handle(req, res, path, await identify(req, res));
    return rest(req, res, path, url, await identify(req, res));
  }

  const server = http.createServer((req, res) => {
    const started = Date.now();
    route(req, res)
      .catch((error: unknown) => {
        if (error instanceof DatabaseUnavailable)
          opts.log?.(`error ${req.method} ${req.url}: database unavailable (${String(error.cause)})`);
        const answer = httpErrorOf(error);
        if (answer) return sendJson(res, answer.status, answer.body, answer.headers);
        opts.log?.(`error ${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`);
        sendJson(res, 500, { code: 'XX000', details: null, hint: null, message: 'Internal server error' });
      })
      .finally(() => opts.log?.(`${req.method} ${req.url} ${res.statusCode} ${Date.now() - started}ms`));
  });

  return {
    server,
    close: async () => {
      await unlistenSchema();
      await passwords.close();
    },
  };
}
