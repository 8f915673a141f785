import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearer, readJson, sendJson } from '../../http/io';
import { API_VERSION_HEADER, authError } from '../errors';
import { USER_COLUMNS, userJson, type UserRow } from '../users';
import {
  EMAIL,
  asBody,
  checkPassword,
  findUserByEmail,
  emailField,
  str,
  userMetadata,
  type AuthContext,
} from '../context';
import { emailExists } from './emailChange';
import { signupDatabaseError } from './signup';

/**
 * POST /admin/users: GoTrue's admin API (supabase.auth.admin.createUser), for the service role
 * only: an account made by the operator, confirmed if `email_confirm` says so. Scripts and test
 * fixtures make their accounts with it; people sign up.
 */
export async function adminCreateUser(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const verified = await ctx.settings.keys.verify(bearer(req) ?? '');
  if (!verified.ok || verified.claims.role !== 'service_role') throw authError(403, 'not_admin', 'User not allowed');
  const body = asBody(await readJson(req));
  const email = emailField(body.email).toLowerCase();
  const password = str(body.password);
  if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  if (password) checkPassword(password, ctx.settings.passwordMinLength);
  if (await findUserByEmail(ctx.db, email)) throw emailExists();
  const hash = password ? await ctx.passwords.hash(password) : null;
  const [user] = await ctx.db
    .query<UserRow>(
      `insert into auth.users (email, encrypted_password, email_confirmed_at, raw_user_meta_data)
       values ($1, $2, case when $3 then now() end, $4::jsonb) returning ${USER_COLUMNS}`,
      [email, hash, body.email_confirm === true, JSON.stringify(userMetadata(body.user_metadata))],
    )
    .catch((error: unknown) => {
      throw signupDatabaseError(error);
    });
  sendJson(res, 200, userJson(user!), API_VERSION_HEADER);
}
