import type { SupabaseClient as AnyClient } from '@supabase/supabase-js';
import type { Database } from '../contracts/typedDatabase';

/** The page's client, typed by the database (contracts/typedDatabase.ts). */
export type SupabaseClient = AnyClient<Database>;
import { toast } from './toast/toastStore';

/**
 * The one Supabase client of the page. The platform entry is a federation singleton, so every remote
 * gets this same instance: one GoTrueClient, one session refresh loop, one realtime socket.
 *
 * supabase-js is a third of the landing page's JavaScript, and a signed-out visitor on the
 * landing page does not need it, so it is fetched on demand: the shell loads it as soon as a
 * session is stored or the visitor leaves the landing page.
 */
let settings: { url: string; anonKey: string; maxRows?: number } | null = null;
let client: SupabaseClient | null = null;
let loading: Promise<SupabaseClient> | null = null;

/** `maxRows` is the API's max_rows (supabase/config.toml), up to which its estimated counts are exact. */
export function configureSupabase(url: string, anonKey: string, maxRows?: number): void {
  settings = { url, anonKey, maxRows };
}

/**
 * Whether a count asked for as `estimated` may be the planner's guess rather than the matches
 * counted: PostgREST counts exactly up to its max_rows and estimates past it.
 */
export const isEstimate = (count: number) => settings?.maxRows !== undefined && count > settings.maxRows;

export function loadSupabase(): Promise<SupabaseClient> {
  if (!settings) return Promise.reject(new Error('configureSupabase() has not run'));
  const { url, anonKey } = settings;
  loading ??= import('@supabase/supabase-js').then(({ createClient }) => {
    client = createClient<Database>(url, anonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
      global: { fetch: signOutWhenSessionEnded },
    });
    client.auth.onAuthStateChange((_event, session) => {
      heldToken = session?.access_token ?? null;
    });
    return client;
  });
  return loading;
}

/**
 * The access token of the session this tab holds. A refusal of any other token is old news: a
 * request still in flight when the user signed out, or one sent just before a refresh.
 */
let heldToken: string | null = null;

const isRefresh = (url: string) => {
  const u = new URL(url);
  return u.pathname.endsWith('/auth/v1/token') && u.searchParams.get('grant_type') === 'refresh_token';
};

/** GoTrue's refusals of a refresh that end the session, in the user's words. */
const REFRESH_REFUSED: Record<string, string> = {
  session_expired: 'You were signed out after a long time without using RepX. Please sign in again.',
  session_not_found: 'Your session has ended. Please sign in again.',
  refresh_token_not_found: 'Your session has ended. Please sign in again.',
  refresh_token_already_used: 'Your session has ended. Please sign in again.',
};

/**
 * The server refuses a token whose session has ended (signed out elsewhere, suspended, password
 * changed): this tab signs out on that first refusal instead of waiting for its next refresh.
 */
const signOutWhenSessionEnded: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  init = readYourWrites(url, init);
  const bearer = new Headers(init?.headers).get('Authorization')?.replace(/^Bearer /, '');
  // Every sign-out of this tab's session goes through here: from now on that session is being let
  // go. (Ending an older session, after signing in again, leaves the held one alone.)
  if (new URL(url).pathname.endsWith('/auth/v1/logout') && bearer === heldToken) heldToken = null;
  const response = await fetch(input, init);
  noteWrite(response);
  if (response.status === 400 && client && isRefresh(url)) {
    // supabase-js drops a session whose refresh is refused; say why, or the user just lands on the sign-in page.
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { error_code?: unknown } | null;
    const why = typeof body?.error_code === 'string' ? REFRESH_REFUSED[body.error_code] : undefined;
    if (why) toast({ title: 'Session Ended', description: why, variant: 'destructive' });
  }
  if (response.status === 401 && client && bearer && bearer === heldToken) {
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { details?: unknown } | null;
    if (body?.details === 'session_not_found') {
      toast({
        title: 'Session Ended',
        description: 'Your session has ended. Please sign in again.',
        variant: 'destructive',
      });
      void client.auth.signOut({ scope: 'local' });
    }
  }
  return response;
};

/** Where the time of this browser's last write is kept: every tab of the session reads it. */
const LAST_WRITE_KEY = 'repx-last-write';
/** For how long after a write the reads say so: beyond any lag a replica may have and still serve. */
const SAY_WROTE_MS = 60_000;

/**
 * Read-your-writes across replicas (server/rest/replica.ts): a write to the API is noted
 * with its time; a read soon after says how long ago the browser wrote (x-repx-wrote-ms-ago), so the
 * server answers it from the primary while a replica may not have the write yet, whichever host
 * serves it. A hosted project ignores the header.
 */
function readYourWrites(url: string, init: RequestInit | undefined): RequestInit | undefined {
  const method = (init?.method ?? 'GET').toUpperCase();
  if (!new URL(url).pathname.includes('/rest/v1/') || (method !== 'GET' && method !== 'HEAD')) return init;
  try {
    const ago = Date.now() - Number(localStorage.getItem(LAST_WRITE_KEY) ?? 0);
    if (ago < 0 || ago >= SAY_WROTE_MS) return init;
    const headers = new Headers(init?.headers);
    headers.set('x-repx-wrote-ms-ago', String(ago));
    return { ...init, headers };
  } catch {
    return init; // no storage (a locked-down browser): the server's own memory of the session's writes applies
  }
}

/** An answer that says its request may have written (X-Repx-Wrote): its time is kept. */
function noteWrite(response: Response): void {
  if (!response.headers.get('X-Repx-Wrote')) return;
  try {
    localStorage.setItem(LAST_WRITE_KEY, String(Date.now()));
  } catch {
    // no storage: the server's memory of the session's writes applies
  }
}

/** The loaded client. Screens behind the auth guards can rely on it: the guards wait for it. */
export function supabase(): SupabaseClient {
  if (!client) throw new Error('Supabase client used before it was loaded');
  return client;
}
