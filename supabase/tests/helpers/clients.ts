import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

export const ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
export const JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
export const DEMO = { email: 'demo@repx.dev', password: 'demo-trader-2026' };
export const ADMIN = { email: 'admin@repx.dev', password: 'admin-repx-2026' };

/** An unmodified supabase-js client, as a browser tab would have (Node 20 needs the ws transport). */
export function client(url: string): SupabaseClient {
  return createClient(url, ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
  });
}

export async function signedIn(url: string, creds: { email: string; password: string }): Promise<SupabaseClient> {
  const c = client(url);
  const { error } = await c.auth.signInWithPassword(creds);
  if (error) throw new Error(`sign-in as ${creds.email} failed: ${error.message}`);
  return c;
}

let counter = 0;
/** Signs up a fresh user (auto-confirmed) and returns the signed-in client. */
export async function newUser(url: string, prefix = 'user'): Promise<{ client: SupabaseClient; id: string; email: string }> {
  const c = client(url);
  const n = `${prefix}${Date.now().toString(36)}${counter++}`;
  const email = `${n}@test.repx.dev`;
  const { data, error } = await c.auth.signUp({ email, password: 'password-123', options: { data: { username: n, full_name: n } } });
  if (error || !data.user) throw new Error(`sign-up failed: ${error?.message}`);
  return { client: c, id: data.user.id, email };
}
