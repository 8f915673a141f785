import crypto from 'node:crypto';
import type { Queryable } from '../db/database';

/**
 * The codes auth mails (a sign-up's confirmation, password recovery, a new email's confirmation),
 * as GoTrue's one-time tokens: eight digits, an hour, five tries. Guessing one is hopeless; reading
 * it off the mail is easy. Only a hash is kept (auth.one_time_tokens), salted with the user's id.
 */
export const MAILED_CODE = { digits: 8, minutes: 60, tries: 5 };

const newCode = () =>
  crypto
    .randomInt(0, 10 ** MAILED_CODE.digits)
    .toString()
    .padStart(MAILED_CODE.digits, '0');

const hashCode = (userId: string, code: string) =>
  crypto.createHash('sha256').update(`${userId}:${code}`).digest('hex');

/** Whether `code` is the one whose hash was kept, compared in constant time. */
export function codeMatches(kept: string, userId: string, code: string): boolean {
  const given = hashCode(userId, code);
  return kept.length === given.length && crypto.timingSafeEqual(Buffer.from(kept), Buffer.from(given));
}

/** A code as typed: spaces (from a copied mail) dropped. */
export const typedCode = (value: string) => value.replace(/\s/g, '');

/** The kinds of mailed code, as auth.one_time_tokens names them. */
export type CodeKind = 'confirmation_token' | 'recovery_token' | 'email_change_token_new';

/**
 * A new code of `kind` for a user, for `relatesTo` (the address it is mailed to), replacing the last
 * one with its tries; answers the code, to mail. Only its hash is kept.
 */
export async function issueCode(tx: Queryable, userId: string, kind: CodeKind, relatesTo: string): Promise<string> {
  const code = newCode();
  await tx.query(
    `insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to) values ($1, $2, $3, $4)
     on conflict (user_id, token_type) do update
       set token_hash = excluded.token_hash, relates_to = excluded.relates_to, attempts = 0, created_at = now()`,
    [userId, kind, hashCode(userId, code), relatesTo],
  );
  return code;
}

/**
 * Counts a wrong try against a user's code of `kind` (the caller's transaction commits, so it
 * stays counted); the last allowed try spends the code.
 */
export async function countWrongTry(tx: Queryable, userId: string, kind: CodeKind, attempts: number): Promise<void> {
  await tx.query(
    attempts + 1 >= MAILED_CODE.tries
      ? 'delete from auth.one_time_tokens where user_id = $1 and token_type = $2'
      : 'update auth.one_time_tokens set attempts = attempts + 1 where user_id = $1 and token_type = $2',
    [userId, kind],
  );
}

/** Spends a user's code of `kind`: it has been used. */
export async function spendCode(tx: Queryable, userId: string, kind: CodeKind): Promise<void> {
  await tx.query('delete from auth.one_time_tokens where user_id = $1 and token_type = $2', [userId, kind]);
}
