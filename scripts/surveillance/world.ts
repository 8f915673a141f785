/**
 * The labelled surveillance suite's world (suite.ts runs it): accounts that sign in from an address
 * of their own, tokens, and orders through the real engine.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { newUser } from '../../integration/harness/clients';

export interface Queryable {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}
export interface SuiteBackend {
  url: string;
  db: Queryable;
}
export interface Account {
  id: string;
  client: SupabaseClient;
}

export async function must<T>(call: PromiseLike<{ data: T; error: { message: string } | null }>): Promise<T> {
  const { data, error } = await call;
  if (error) throw new Error(error.message);
  return data;
}
export const order = (
  c: SupabaseClient,
  token: string,
  side: 'buy' | 'sell',
  type: 'limit' | 'market',
  amount: number,
  price?: number,
) => c.rpc('place_order', { p_token: token, p_side: side, p_type: type, p_amount: amount, p_price: price ?? null });

/** What the suite makes accounts and tokens with. */
export function context(backend: SuiteBackend, rnd: () => number) {
  const db = backend.db;
  // Each account signs in from an address of its own, as people do (the suite's clients all
  // connect from this machine); linked accounts share one.
  let addresses = 0;
  const account = async (cash: number, aged = true, address?: string): Promise<Account> => {
    const u = await newUser(backend.url, 'sv');
    addresses++;
    const ip = address ?? `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
    await db.query('update auth.sessions set ip = $2::inet where user_id = $1', [u.id, ip]);
    if (cash) await db.query('select private.record_deposit($1, $2)', [u.id, cash]);
    if (aged) await db.query(`update profiles set created_at = now() - interval '30 days' where id = $1`, [u.id]);
    return { id: u.id, client: u.client };
  };
  const token = async (): Promise<string> => {
    const n = `sv${Date.now().toString(36)}${Math.floor(rnd() * 1e6)}`;
    const [row] = await db.query<{ id: string }>(
      `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
       values ($1, $1, 'Test', 50, 1000000, 10) returning id`,
      [n],
    );
    return row!.id;
  };
  const give = (t: string, a: Account, n: number) => db.query('select private.issue_tokens($1, $2, $3)', [t, a.id, n]);
  return { db, rnd, account, token, give };
}
export type Context = ReturnType<typeof context>;
