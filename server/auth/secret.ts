import crypto from 'node:crypto';
import type { Database } from '../db/database';
import { DEMO_JWT_SECRET } from '../demo';

/**
 * The JWT secret of this installation: generated at random on first start and kept in the
 * database (local_server.secrets), so every restart, and every server over the same database,
 * signs and verifies with the same one. Nobody outside can mint a token with it.
 */
export async function installationJwtSecret(db: Database): Promise<string> {
  await db.query(
    `insert into local_server.secrets (name, value) values ('jwt_secret', $1) on conflict (name) do nothing`,
    [crypto.randomBytes(48).toString('base64url')],
  );
  const [row] = await db.query<{ value: string }>(`select value from local_server.secrets where name = 'jwt_secret'`);
  return row!.value;
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|::1|\[::1\])$/;

/** Refuses to serve beyond this machine with a secret that everyone knows. */
export function assertSafeToListen(host: string, secret: string): void {
  if (secret === DEMO_JWT_SECRET && !LOOPBACK.test(host)) {
    throw new Error(
      `Refusing to listen on ${host} with the Supabase CLI's public demo JWT secret: anyone could sign a ` +
        "service_role token and bypass row-level security. Unset JWT_SECRET to use this installation's own " +
        'generated secret, or set JWT_SECRET to a secret of your own.',
    );
  }
}
