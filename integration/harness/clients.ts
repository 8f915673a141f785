import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';

import type { RequestIdentity } from '../../server/db/caller';
import { JwtKeys } from '../../server/auth/jwt';
import { DEMO_ACCOUNTS, DEMO_ANON_KEY, DEMO_JWT_SECRET } from '../../server/demo';

export const ANON_KEY = DEMO_ANON_KEY;
export const JWT_SECRET = DEMO_JWT_SECRET;
export const DEMO = DEMO_ACCOUNTS.user;
export const ADMIN = DEMO_ACCOUNTS.admin;

/**
 * An unmodified supabase-js client, as a browser tab would have (Node's own WebSocket carries Realtime);
 * `vsn` picks Realtime's serializer (supabase-js's default when unset); `fetchImpl` its HTTP
 * transport (Node's fetch when unset).
 */
export function client(
  url: string,
  key = ANON_KEY,
  headers: Record<string, string> = {},
  vsn?: '1.0.0' | '2.0.0',
  fetchImpl?: typeof fetch,
): SupabaseClient {
  return createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers, ...(fetchImpl ? { fetch: fetchImpl } : {}) },
    ...(vsn ? { realtime: { vsn } } : {}),
  });
}

/** supabase-js as a bot uses it: the anon key as `apikey`, an API key (docs/api.md) as the access token. */
export function keyClient(url: string, key: string): SupabaseClient {
  return createClient(url, ANON_KEY, { accessToken: () => Promise.resolve(key) });
}

/** A user (the demo user unless told), signed in, with Realtime authorized as them: a channel member. */
export async function realtimeMember(
  url: string,
  vsn?: '1.0.0' | '2.0.0',
  creds: { email: string; password: string } = DEMO,
): Promise<SupabaseClient> {
  const c = client(url, ANON_KEY, {}, vsn);
  const { error } = await c.auth.signInWithPassword(creds);
  if (error) throw error;
  await c.realtime.setAuth();
  return c;
}

export async function signedIn(
  url: string,
  creds: { email: string; password: string },
  fetchImpl?: typeof fetch,
): Promise<SupabaseClient> {
  const c = client(url, ANON_KEY, {}, undefined, fetchImpl);
  const { error } = await c.auth.signInWithPassword(creds);
  if (error) throw new Error(`sign-in as ${creds.email} failed: ${error.message}`);
  return c;
}

/** Who a signed-in client is to the database: its access token's role and claims, as the server reads them. */
export async function identityOf(c: SupabaseClient): Promise<RequestIdentity> {
  const token = (await c.auth.getSession()).data.session!.access_token;
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as RequestIdentity['claims'];
  return { role: String(claims.role), claims };
}

let counter = 0;
let serviceKey: Promise<string> | undefined;
/** The service role's key under the demo secret the harness's backends are started with. */
export const SERVICE_ROLE_KEY = () => (serviceKey ??= new JwtKeys(JWT_SECRET).apiKey('service_role'));

/**
 * A fresh user, confirmed, made through the auth admin API as an operator's script makes accounts
 * (sign-up itself, with its mailed code, is tested in auth.test.ts), and its signed-in client.
 */
export async function newUser(
  url: string,
  prefix = 'user',
): Promise<{ client: SupabaseClient; id: string; email: string }> {
  const n = `${prefix}${Date.now().toString(36)}${counter++}`;
  const email = `${n}@test.repx.dev`;
  const admin = client(url, await SERVICE_ROLE_KEY());
  const made = await admin.auth.admin.createUser({
    email,
    password: 'password-123',
    email_confirm: true,
    user_metadata: { username: n, full_name: n },
  });
  if (made.error) throw new Error(`creating ${email} failed: ${made.error.message}`);
  const c = await signedIn(url, { email, password: 'password-123' });
  return { client: c, id: made.data.user.id, email };
}

/** Subscribes a channel and resolves once the server has accepted the join. */
export function subscribed(channel: RealtimeChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status));
    });
  });
}
