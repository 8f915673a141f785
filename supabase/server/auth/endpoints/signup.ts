import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPgError } from '../../db/database';
import { readJson, sendJson } from '../../http/io';
import { API_VERSION_HEADER, authError } from '../errors';
import { startSession } from '../sessions';
import { USER_COLUMNS, type UserRow } from '../users';
import { EMAIL, asBody, checkPassword, findUserByEmail, str, type AuthContext } from '../context';

/** POST /signup: an email and password account, confirmed at once (the CLI's default), signed in. */
export async function signup(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  await ctx.limit('signUp', ctx.address(req));
  const body = asBody(await readJson(req));
  const email = str(body.email).trim().toLowerCase();
  const password = str(body.password);
  if (!email && !body.phone) throw authError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
  if (!email) throw authError(422, 'phone_provider_disabled', 'Phone signups are disabled');
  if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  if (!password) throw authError(400, 'validation_failed', 'Signup requires a valid password');
  checkPassword(password, ctx.settings.passwordMinLength);
  const data = asBody(body.data);
  const hash = await ctx.passwords.hash(password);
  try {
    const session = await ctx.db.transaction(async (tx) => {
      if (await findUserByEmail(tx, email)) throw authError(422, 'user_already_exists', 'User already registered');
      const [user] = await tx.query<UserRow>(
        `insert into auth.users (email, encrypted_password, email_confirmed_at, last_sign_in_at, raw_user_meta_data)
         values ($1, $2, now(), now(), $3::jsonb) returning ${USER_COLUMNS}`,
        [email, hash, JSON.stringify(data)],
      );
      return startSession(tx, ctx.settings, user!, ctx.client(req));
    });
    sendJson(res, 200, session, API_VERSION_HEADER);
  } catch (error) {
    throw signupDatabaseError(error);
  }
}

/** Errors raised by the new-user trigger (username taken or invalid) reach the user in words. */
function signupDatabaseError(error: unknown): unknown {
  if (!isPgError(error)) return error;
  if (error.code === 'P0001') return authError(422, 'validation_failed', error.message);
  if (error.code === '23514' && /username/.test(error.message)) {
    return authError(
      422,
      'validation_failed',
      'A username has 2 to 30 characters: letters, digits, dots, dashes and underscores.',
    );
  }
  if (error.code === '23505') return authError(422, 'user_already_exists', 'User already registered');
  return authError(500, 'unexpected_failure', 'Database error saving new user');
}
