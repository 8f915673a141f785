import path from 'node:path';
import type { BackendOptions } from './index';
import { authConfig } from './authConfig';
import { DEFAULT_SESSION_INACTIVITY } from './auth/sessions';
import { DEFAULT_POOL } from './db/postgres';
import { env } from './env';
import { DEFAULT_RATE_LIMITS } from './http/rateLimit';
import { DEFAULT_REALTIME_LIMITS } from './realtime/limits';

/** The backend's settings from the environment (the README's Configuration table, parsed by env.ts). */
export function backendOptionsFromEnv(): BackendOptions {
  const set = env();
  const auth = authConfig();
  return {
    port: set.SUPABASE_PORT ?? 54321,
    host: set.SUPABASE_HOST ?? '127.0.0.1',
    databaseUrl: set.DATABASE_URL,
    databaseDirectUrl: set.DATABASE_DIRECT_URL,
    databaseReplicaUrl: set.DATABASE_REPLICA_URL,
    replicaMaxLagMs: set.REPLICA_MAX_LAG_MS,
    databasePool: set.DB_POOL ?? DEFAULT_POOL,
    dataDir: set.DATA_DIR ?? path.resolve(__dirname, '../.data/pglite'),
    jwtSecret: set.JWT_SECRET,
    jwtExpiry: auth.jwtExpiry,
    passwordMinLength: auth.minimumPasswordLength,
    emailConfirmations: auth.emailConfirmations,
    siteUrl: auth.siteUrl,
    sessionInactivity: set.SESSION_INACTIVITY_TIMEOUT ?? DEFAULT_SESSION_INACTIVITY,
    seed: set.SEED ?? true,
    publicUrl: set.SUPABASE_PUBLIC_URL,
    payments: {
      delayMs: set.PAYMENT_DELAY_MS,
      payoutAfterMs: set.PAYOUT_AFTER_MS,
      leaseMs: set.PAYMENT_LEASE_MS,
    },
    fraudScanMs: set.FRAUD_SCAN_MS,
    reputationMs: set.REPUTATION_MS,
    autoInvestMs: set.AUTO_INVEST_MS,
    offeringsMs: set.OFFERINGS_MS,
    rateLimits: set.RATE_LIMITS ?? structuredClone(DEFAULT_RATE_LIMITS),
    realtimeLimits: set.REALTIME_LIMITS ?? { ...DEFAULT_REALTIME_LIMITS },
    migrate: set.MIGRATE ?? true,
    // Errors always; auth's caught mail (a sign-up's or a recovery code) too, as there is no other inbox locally.
    log: set.LOG_REQUESTS
      ? (l) => console.log(l)
      : (l) => (l.startsWith('error') ? console.error(l) : l.startsWith('mail') && console.log(l)),
  };
}
