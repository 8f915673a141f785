import path from 'node:path';
import type { BackendOptions } from './index';
import { poolSize } from './db/postgres';
import { authConfig } from './auth/config';
import { sessionInactivityFromEnv } from './auth/sessions';
import { rateLimitsFromEnv } from './http/rateLimit';
import { realtimeLimitsFromEnv } from './realtime/limits';

/** The backend's settings from the environment (the README's Configuration table). */
export function backendOptionsFromEnv(): BackendOptions {
  const auth = authConfig();
  return {
    port: Number(process.env.SUPABASE_PORT ?? 54321),
    host: process.env.SUPABASE_HOST ?? '127.0.0.1',
    databaseUrl: process.env.DATABASE_URL || undefined,
    databaseDirectUrl: process.env.DATABASE_DIRECT_URL || undefined,
    databaseReplicaUrl: process.env.DATABASE_REPLICA_URL || undefined,
    replicaMaxLagMs: optionalNumber(process.env.REPLICA_MAX_LAG_MS),
    databasePool: poolSize(process.env.DB_POOL),
    dataDir: process.env.DATA_DIR ?? path.resolve(__dirname, '../../.data/pglite'),
    jwtSecret: process.env.JWT_SECRET || undefined,
    jwtExpiry: auth.jwtExpiry,
    passwordMinLength: auth.minimumPasswordLength,
    emailConfirmations: auth.emailConfirmations,
    siteUrl: auth.siteUrl,
    sessionInactivity: sessionInactivityFromEnv(process.env.SESSION_INACTIVITY_TIMEOUT),
    seed: process.env.SEED !== 'false',
    publicUrl: process.env.SUPABASE_PUBLIC_URL,
    payments: {
      delayMs: optionalNumber(process.env.PAYMENT_DELAY_MS),
      payoutAfterMs: optionalNumber(process.env.PAYOUT_AFTER_MS),
      leaseMs: optionalNumber(process.env.PAYMENT_LEASE_MS),
    },
    fraudScanMs: optionalNumber(process.env.FRAUD_SCAN_MS),
    reputationMs: optionalNumber(process.env.REPUTATION_MS),
    autoInvestMs: optionalNumber(process.env.AUTO_INVEST_MS),
    offeringsMs: optionalNumber(process.env.OFFERINGS_MS),
    rateLimits: rateLimitsFromEnv(process.env.RATE_LIMITS),
    realtimeLimits: realtimeLimitsFromEnv(process.env.REALTIME_LIMITS),
    migrate: process.env.MIGRATE !== 'false',
    // Errors always; auth's caught mail (a sign-up's or a recovery code) too, as there is no other inbox locally.
    log:
      process.env.LOG_REQUESTS === 'true'
        ? (l) => console.log(l)
        : (l) => (l.startsWith('error') ? console.error(l) : l.startsWith('mail') && console.log(l)),
  };
}

const optionalNumber = (value: string | undefined) => (value ? Number(value) : undefined);
