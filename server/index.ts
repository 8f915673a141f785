import type { AddressInfo } from 'node:net';
import type { Database } from './db/database';
import { migrate } from './db/migrate';
import { openPglite } from './db/pglite';
import { openPostgres } from './db/postgres';
import { counted } from './db/counted';
import { Replica } from './db/replica';
import { metricsText } from './metrics';
import { vacuumWhereDue } from './db/vacuum';
import { createApp } from './app';
import { createRealtime } from './realtime/server';
import { DEFAULT_REALTIME_LIMITS, type RealtimeLimits } from './realtime/limits';
import { ApiKeys } from './auth/apiKeys';
import { JwtKeys } from './auth/jwt';
import { bytesInDatabase, bytesInFolder, bytesInMemory, type ObjectBytes } from './storage/objects';
import { startWorkers, type WorkerOptions } from './workers';
import { toOutbox } from './accountMail';
import { closeDueOfferings, keepPortfolioCloses, runDuePlans, runVolatilityAuctions, schedule } from './schedule';
import { authConfig } from './authConfig';
import { readProjectConfig } from './projectConfig';
import { DEFAULT_SESSION_INACTIVITY, endIdleSessions } from './auth/sessions';
import type { RateLimits } from './http/rateLimit';
import { assertSafeToListen, installationJwtSecret } from './auth/secret';

export interface BackendOptions extends WorkerOptions {
  port?: number;
  host?: string;
  /** PostgreSQL connection string; without it the embedded PGlite is used. */
  databaseUrl?: string;
  /**
   * The primary's direct connection, when databaseUrl is a transaction-mode pooler's (PgBouncer,
   * Supavisor): LISTEN and migrations take it; queries go through the pooler (db/postgres.ts).
   */
  databaseDirectUrl?: string;
  /** A streaming replica for the reads that tolerate its lag (rest/replica.ts), and that lag's bound. */
  databaseReplicaUrl?: string;
  replicaMaxLagMs?: number;
  /** Connections to PostgreSQL (DB_POOL); cluster.ts's serve shares them among its processes. */
  databasePool?: number;
  /** PGlite data folder; undefined keeps the database in memory. */
  dataDir?: string;
  /** An in-memory PGlite's start, instead of initdb: a data directory's image (the test harness's, empty or migrated). */
  pgliteImage?: Blob;
  /** HS256 secret; without it, the installation's own generated secret (kept in the database). */
  jwtSecret?: string;
  /*
   * Auth's settings; each one left out is supabase/config.toml's (authConfig.ts), so a test or a
   * benchmark runs the project as the file describes it.
   */
  jwtExpiry?: number;
  /** The shortest password sign-up and a password change accept. */
  passwordMinLength?: number;
  /**
   * bcrypt's cost for new password hashes; BCRYPT_COST (GoTrue's) unless set. Only the test
   * harnesses lower it, for speed: no setting of the environment reaches it.
   */
  passwordHashCost?: number;
  /** Sign-up waits for the mailed code; off, it answers a session, as GoTrue with autoconfirm. */
  emailConfirmations?: boolean;
  /** The app's address, which auth's mail points the reader to. */
  siteUrl?: string;
  /** Seconds after which a session nobody used (no sign-in, no refresh) ends; 0 keeps sessions until sign-out. */
  sessionInactivity?: number;
  /** Where the REST API's estimated counts stop counting; left out, config.toml's [api] max_rows. */
  maxRows?: number;
  seed?: boolean;
  publicUrl?: string;
  /** Auth rate limits (GoTrue-like defaults). */
  rateLimits?: RateLimits;
  /** Realtime's limits per socket and per address (Supabase-like defaults). */
  realtimeLimits?: RealtimeLimits;
  /** How often reputation scores are recomputed (hourly by default). */
  reputationMs?: number;
  /** How often good-til-date orders past their time are expired, and stops left waiting by a busy trade are run. */
  expiryMs?: number;
  /** How often Auto-Invest's due plans are run (auto_invest.sql). */
  autoInvestMs?: number;
  /** How often offerings whose window has passed are closed (offerings.sql). */
  offeringsMs?: number;
  /** How often the fraud rules run over recent orders and trades. */
  fraudScanMs?: number;
  /** How often tables are checked for the vacuum and analyze PostgreSQL's autovacuum would run, where it does not (db/vacuum.ts). */
  vacuumMs?: number;
  /** False when the payment, social and mail workers run elsewhere (`npm run workers`, workers.ts). */
  workers?: boolean;
  /** False when another process has prepared the database (migrations, seed, secret): see cluster.ts. */
  migrate?: boolean;
}

export interface Backend {
  url: string;
  port: number;
  db: Database;
  /** The project API keys signed with this backend's secret: the anon key goes to the browser. */
  anonKey: string;
  serviceRoleKey: string;
  close: () => Promise<void>;
}

/** The settings a project's config.toml gives (auth's, the API's max_rows), each one the options leave out. */
function projectSettings(opts: BackendOptions) {
  const auth = authConfig({});
  return {
    jwtExpiry: opts.jwtExpiry ?? auth.jwtExpiry,
    passwordMinLength: opts.passwordMinLength ?? auth.minimumPasswordLength,
    emailConfirmations: opts.emailConfirmations ?? auth.emailConfirmations,
    siteUrl: opts.siteUrl ?? auth.siteUrl,
    maxRows: opts.maxRows ?? readProjectConfig().maxRows,
  };
}

export async function startBackend(opts: BackendOptions = {}): Promise<Backend> {
  const db = counted(
    opts.databaseUrl
      ? await openPostgres(opts.databaseUrl, opts.databasePool, undefined, { directUrl: opts.databaseDirectUrl })
      : await openPglite(opts.dataDir, opts.pgliteImage),
  );
  const replica = opts.databaseReplicaUrl
    ? new Replica(
        counted(
          await openPostgres(opts.databaseReplicaUrl, opts.databasePool, undefined, {
            pooled: opts.databaseDirectUrl !== undefined, // behind the same kind of pooler as the primary
          }),
        ),
        db,
        opts.replicaMaxLagMs,
        opts.log,
      )
    : undefined;
  replica?.start();
  try {
    if (opts.migrate !== false) await migrate(db, { seed: opts.seed ?? true });
    const host = opts.host ?? '127.0.0.1';
    const port = opts.port ?? 54321;
    const publicUrl = opts.publicUrl ?? `http://localhost:${port}`;
    const jwtSecret = opts.jwtSecret ?? (await installationJwtSecret(db));
    const sessionInactivity = opts.sessionInactivity ?? DEFAULT_SESSION_INACTIVITY;
    const project = projectSettings(opts);
    assertSafeToListen(host, jwtSecret);
    const keys = new JwtKeys(jwtSecret);
    const apiKeys = new ApiKeys(db);
    const realtime = await createRealtime({
      db,
      keys,
      apiKeys,
      limits: opts.realtimeLimits ?? DEFAULT_REALTIME_LIMITS,
      log: opts.log,
    });
    const app = await createApp({
      db,
      keys,
      realtime: realtime.http,
      objectBytes: objectBytesFor(opts),
      ...project,
      sessionInactivity,
      publicUrl,
      passwordHashCost: opts.passwordHashCost,
      rateLimits: opts.rateLimits,
      metrics: () => metricsText(db.counters, realtime.metrics(), replica),
      replica,
      apiKeys,
      log: opts.log,
    });
    realtime.attach(app.server);
    const workers =
      opts.workers === false
        ? undefined
        : await startWorkers(db, {
            ...opts,
            mail: toOutbox({ siteUrl: project.siteUrl, log: opts.log }),
          });
    const jobs = schedule(
      db,
      [
        { name: 'fraud scan', sql: 'select private.scan_fraud()', everyMs: opts.fraudScanMs ?? 60_000 },
        { name: 'market stats', sql: 'select private.slide_token_stats()', everyMs: 5_000 },
        {
          name: 'order expiry and due stops',
          sql: 'select private.expire_orders(), private.run_due_stops()',
          everyMs: opts.expiryMs ?? 2_000,
        },
        { name: 'dead-man switches', sql: 'select private.fire_cancel_after()', everyMs: 1_000 },
        { name: 'retention', sql: 'select private.prune(), local_server.prune()', everyMs: 10 * 60_000 },
        { name: 'reputation', sql: 'select private.refresh_reputation()', everyMs: opts.reputationMs ?? 60 * 60_000 },
        { name: 'repx index', sql: 'select private.record_index_levels()', everyMs: 60_000 },
        { name: 'vesting', sql: 'select private.release_vesting()', everyMs: 60_000 },
        { name: 'auto-invest', run: () => runDuePlans(db), everyMs: opts.autoInvestMs ?? 5_000 },
        { name: 'offerings', run: () => closeDueOfferings(db), everyMs: opts.offeringsMs ?? 5_000 },
        { name: 'volatility auctions', run: () => runVolatilityAuctions(db), everyMs: 1_000 },
        { name: 'portfolio closes', run: () => keepPortfolioCloses(db), everyMs: 60_000 },
        { name: 'vacuum', run: () => vacuumWhereDue(db), everyMs: opts.vacuumMs ?? 10_000 },
        ...(sessionInactivity > 0
          ? [{ name: 'idle sessions', run: () => endIdleSessions(db, sessionInactivity), everyMs: 10 * 60_000 }]
          : []),
      ],
      opts.log,
    );
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen(port, host, resolve);
    });
    const actual = (app.server.address() as AddressInfo).port;
    // The address profile images must name (supabase/schemas/core.sql, private.deployment).
    await db.query(
      `insert into private.deployment (public_url) values ($1) on conflict (id) do update set public_url = excluded.public_url`,
      [(opts.publicUrl ?? `http://localhost:${actual}`).replace(/\/+$/, '')],
    );
    return {
      url: `http://localhost:${actual}`,
      port: actual,
      db,
      anonKey: await keys.apiKey('anon'),
      serviceRoleKey: await keys.apiKey('service_role'),
      close: async () => {
        jobs.close();
        await workers?.close();
        await realtime.close();
        app.server.closeAllConnections();
        await new Promise<void>((resolve) => app.server.close(() => resolve()));
        await app.close();
        replica?.stop();
        await replica?.db.close();
        await db.close();
      },
    };
  } catch (error) {
    replica?.stop();
    await replica?.db.close();
    await db.close();
    throw error;
  }
}

/** Migrations, seed and the installation's secret, once, before server processes start. */
export async function prepareDatabase(opts: BackendOptions): Promise<void> {
  const db = opts.databaseUrl
    ? await openPostgres(opts.databaseDirectUrl ?? opts.databaseUrl, opts.databasePool)
    : await openPglite(opts.dataDir);
  try {
    await migrate(db, { seed: opts.seed ?? true });
    if (!opts.jwtSecret) await installationJwtSecret(db);
  } finally {
    await db.close();
  }
}

/**
 * Where storage objects' bytes live: in the database over PostgreSQL (every process and host reads
 * the same), beside PGlite's data folder in files (or in memory, with the database).
 */
function objectBytesFor(opts: BackendOptions): ObjectBytes {
  if (opts.databaseUrl) return bytesInDatabase;
  return opts.dataDir ? bytesInFolder(`${opts.dataDir.replace(/\/+$/, '')}-storage`) : bytesInMemory();
}
