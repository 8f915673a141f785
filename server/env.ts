import { z } from 'zod';
import { MIN_JWT_SECRET_LENGTH } from './auth/jwt';
import { passwordMinLength } from './auth/passwordPolicy';
import { rateLimitsFromEnv } from './http/rateLimit';
import { realtimeLimitsFromEnv } from './realtime/limits';

/**
 * Every variable of the README's Configuration table, parsed once at start by this one schema.
 * Unset (or empty) means "the default", which the code that owns the setting decides; a value
 * that is set must be one the variable accepts, or the process stops with a message naming the
 * variable, its value and what it accepts. A typo never becomes NaN, or a job run every millisecond.
 */

/** A variable read by `read`, which throws (or returns undefined) on a value it does not accept. */
function setting<T>(accepts: string, read: (value: string) => T | undefined) {
  return z
    .string()
    .optional()
    .transform((value, ctx): T | undefined => {
      if (value === undefined || value === '') return undefined;
      let out: T | undefined;
      try {
        out = read(value);
      } catch {
        out = undefined;
      }
      if (out === undefined) {
        ctx.addIssue({ code: 'custom', message: accepts });
        return z.NEVER;
      }
      return out;
    });
}

const whole =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string) => {
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
  };
const urlWith =
  (...protocols: string[]) =>
  (value: string) =>
    URL.canParse(value) && protocols.includes(new URL(value).protocol) ? value : undefined;
const flag = (value: string) => (value === 'true' ? true : value === 'false' ? false : undefined);
const text = (value: string) => value;

const port = setting('a port number from 1 to 65535', whole(1, 65_535));
const web = setting('an http:// or https:// URL', urlWith('http:', 'https:'));
const postgres = setting('a postgres:// or postgresql:// URL', urlWith('postgres:', 'postgresql:'));
const bool = setting('true or false', flag);
/** How often a job runs: at least 10 ms, so that a slip of the pen cannot turn it into a busy loop. */
const every = setting('a whole number of milliseconds, 10 or more', whole(10));
const wait = setting('a whole number of milliseconds, 0 or more', whole(0));

export const ENV_SCHEMA = z.object({
  // The stack: ports and where the browser finds each part.
  SHELL_PORT: port,
  MARKET_PORT: port,
  PORTFOLIO_PORT: port,
  TRADING_PORT: port,
  WALLET_PORT: port,
  ADMIN_PORT: port,
  REMOTE_MARKET_URL: web,
  REMOTE_PORTFOLIO_URL: web,
  REMOTE_TRADING_URL: web,
  REMOTE_WALLET_URL: web,
  REMOTE_ADMIN_URL: web,
  SUPABASE_URL: web,
  // A legacy anon key (a JWT) or a publishable key (sb_publishable_...): one token, no spaces.
  SUPABASE_ANON_KEY: setting('the project’s anon or publishable key', (v) => (/^[\w.-]+$/.test(v) ? v : undefined)),
  SUPABASE_PORT: port,
  SUPABASE_HOST: setting('an interface address or host name', (v) => (/^[\w.:-]+$/.test(v) ? v : undefined)),
  SUPABASE_PUBLIC_URL: web,
  // The database.
  DATABASE_URL: postgres,
  DATABASE_DIRECT_URL: postgres,
  DATABASE_REPLICA_URL: postgres,
  REPLICA_MAX_LAG_MS: wait,
  SERVER_PROCESSES: setting('a whole number of at least 1, or auto', (v) =>
    v === 'auto' ? ('auto' as const) : whole(1)(v),
  ),
  DB_POOL: setting('a whole number of at least 1', whole(1)),
  MIGRATE: bool,
  DATA_DIR: setting('a folder', text),
  SEED: bool,
  // Auth.
  JWT_SECRET: setting(`a secret of at least ${MIN_JWT_SECRET_LENGTH} characters`, (v) =>
    v.length >= MIN_JWT_SECRET_LENGTH ? v : undefined,
  ),
  JWT_EXPIRY: setting('a whole number of seconds, 30 or more', whole(30)),
  AUTH_EMAIL_CONFIRMATIONS: bool,
  SITE_URL: web,
  SESSION_INACTIVITY_TIMEOUT: setting('a whole number of seconds, 0 for never', whole(0)),
  PASSWORD_MIN_LENGTH: setting('a whole number from 6 to 72', passwordMinLength),
  RATE_LIMITS: setting('off, or name=count/seconds pairs separated by commas (docs/security.md)', rateLimitsFromEnv),
  REALTIME_LIMITS: setting('off, or name=number pairs separated by commas (docs/security.md)', realtimeLimitsFromEnv),
  // Money and mail.
  PAYMENT_DELAY_MS: wait,
  PAYOUT_AFTER_MS: wait,
  PAYMENT_LEASE_MS: setting('a whole number of milliseconds, 100 or more', whole(100)),
  SMTP_URL: setting('an smtp:// or smtps:// URL', urlWith('smtp:', 'smtps:')),
  MAIL_FROM: setting('a sender, e.g. RepX <no-reply@repx.dev>', (v) => (v.includes('@') ? v : undefined)),
  // Jobs.
  REPUTATION_MS: every,
  AUTO_INVEST_MS: every,
  OFFERINGS_MS: every,
  FRAUD_SCAN_MS: every,
  LOG_REQUESTS: bool,
  // Builds, releases and tests.
  SKIP_BUILD: bool,
  BUILD_ID: setting('letters, digits, dots, dashes and underscores', (v) => (/^[\w.:-]+$/.test(v) ? v : undefined)),
  OUT_DIR: setting('a folder', text),
  RELEASES_KEPT: setting('a whole number of at least 2', whole(2)),
  TEST_DATABASE_URL: postgres,
  TEST_ENGINES: setting('pglite, postgres, or both separated by a comma', (v) => {
    const engines = v.split(',').map((e) => e.trim());
    return engines.every((e) => e === 'pglite' || e === 'postgres')
      ? (engines as ('pglite' | 'postgres')[])
      : undefined;
  }),
  CHROMIUM_PATH: setting('the path of a Chromium executable', text),
});

export type Env = z.output<typeof ENV_SCHEMA>;

/** Every bad variable at once, each with its value and what it accepts. */
export class ConfigError extends Error {
  constructor(readonly problems: { name: string; value: string; accepts: string }[]) {
    super(
      `Configuration refused:\n${problems
        .map((p) => `  ${p.name}="${p.value}": expected ${p.accepts}`)
        .join('\n')}\n(README, Configuration)`,
    );
    this.name = 'ConfigError';
  }
}

/** The environment, parsed; throws ConfigError naming every variable it refuses. */
export function readEnv(source: NodeJS.ProcessEnv): Env {
  const result = ENV_SCHEMA.safeParse(source);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      return { name, value: source[name] ?? '', accepts: issue.message };
    }),
  );
}

let parsed: Env | undefined;

/** This process's environment, parsed on first use: the one place a setting is read from. */
export function env(): Env {
  parsed ??= readEnv(process.env);
  return parsed;
}
