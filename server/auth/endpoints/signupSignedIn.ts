import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPgError } from '../../db/database';
import { sendJson } from '../../http/io';
import { API_VERSION_HEADER, authError } from '../errors';
import { USER_COLUMNS, type UserRow } from '../users';
import { startSession } from '../sessions';
import { findUserByEmail, type AuthContext } from '../context';

/**
 * Sign-up with confirmations off ([auth.email] enable_confirmations = false, the Supabase CLI's
 * default), as GoTrue with autoconfirm answers it: the account is confirmed at once and the answer
 * is its session. An address that has an account is refused as GoTrue refuses it, in words
 * (422 user_already_exists); without a mailed code nothing else could keep the account its owner's,
 * and a sign-up that answers a session tells which addresses are taken either way.
 */
export async function signUpSignedIn(
  ctx: AuthContext,
  req: IncomingMessage,
  res: ServerResponse,
  signUp: { email: string; hash: string; data: Record<string, unknown> },
) {
  const attempt = () =>
    ctx.db.transaction(async (tx) => {
      if (await findUserByEmail(tx, signUp.email))
        throw authError(422, 'user_already_exists', 'User already registered');
      const [user] = await tx.query<UserRow>(
        `insert into auth.users (email, encrypted_password, raw_user_meta_data, email_confirmed_at, last_sign_in_at)
         values ($1, $2, $3::jsonb, now(), now()) returning ${USER_COLUMNS}`,
        [signUp.email, signUp.hash, JSON.stringify(signUp.data)],
      );
      return startSession(tx, ctx.settings, user!, ctx.client(req));
    });
  // Two sign-ups of one new address at once: the one that lost the race is told the address is taken.
  const session = await attempt().catch((error: unknown) => {
    if (isPgError(error) && error.code === '23505' && /users_email/.test(error.message)) return attempt();
    throw error;
  });
  sendJson(res, 200, session, API_VERSION_HEADER);
}
