import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RateLimits } from '../http/rateLimit';
import type { Database } from '../db/database';
import { sendJson } from '../http/io';
import { authError } from './errors';
import type { PasswordHasher } from './passwords';
import type { AuthSettings } from './sessions';
import { authContext } from './context';
import { resend, signup } from './endpoints/signup';
import { adminCreateUser } from './endpoints/admin';
import { passwordGrant, refreshGrant } from './endpoints/token';
import { getUser, logout, updateUser } from './endpoints/user';
import { recover, signInCode, verify } from './endpoints/recover';
import { challenge, enroll, unenroll, verifyFactor } from './endpoints/factors';

const FACTOR_PATH = /^\/factors\/([^/]+)(\/challenge|\/verify)?$/;

/** The /auth/v1 subset of GoTrue that supabase-js uses for email and password accounts: one module per endpoint. */
export function authRoutes(
  db: Database,
  settings: AuthSettings,
  passwords: PasswordHasher,
  limits: RateLimits,
  log?: (line: string) => void,
) {
  const ctx = authContext(db, settings, passwords, limits, log);
  return async function handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const route = `${req.method} ${path}`;
    const factor = FACTOR_PATH.exec(path);
    if (factor) {
      const [, id, action] = factor as unknown as [string, string, string | undefined];
      if (req.method === 'POST' && action === '/challenge') return challenge(ctx, req, res, id);
      if (req.method === 'POST' && action === '/verify') return verifyFactor(ctx, req, res, id);
      if (req.method === 'DELETE' && !action) return unenroll(ctx, req, res, id);
    }
    switch (route) {
      case 'POST /factors':
        return enroll(ctx, req, res);
      case 'POST /signup':
        return signup(ctx, req, res);
      case 'POST /admin/users':
        return adminCreateUser(ctx, req, res);
      case 'POST /token': {
        const grant = url.searchParams.get('grant_type');
        if (grant === 'password') return passwordGrant(ctx, req, res);
        if (grant === 'refresh_token') return refreshGrant(ctx, req, res);
        throw authError(400, 'invalid_credentials', 'unsupported_grant_type');
      }
      case 'POST /recover':
        return recover(ctx, req, res);
      case 'POST /otp':
        return signInCode(ctx, req, res);
      case 'POST /resend':
        return resend(ctx, req, res);
      case 'POST /verify':
        return verify(ctx, req, res);
      case 'POST /logout':
        return logout(ctx, req, res, url);
      case 'GET /user':
        return getUser(ctx, req, res);
      case 'PUT /user':
        return updateUser(ctx, req, res);
      case 'GET /settings':
        return sendJson(res, 200, {
          external: { email: true, phone: false, anonymous_users: false },
          disable_signup: false,
          mailer_autoconfirm: !settings.emailConfirmations,
          phone_autoconfirm: false,
          sms_provider: '',
          saml_enabled: false,
        });
      case 'GET /health':
        return sendJson(res, 200, {
          version: 'repx-local',
          name: 'GoTrue',
          description: 'RepX local auth (GoTrue subset)',
        });
      case 'GET /.well-known/jwks.json':
        // HS256 keys are never published.
        return sendJson(res, 200, { keys: [] }, { 'Cache-Control': 'public, max-age=600' });
      default:
        throw authError(
          404,
          'not_found',
          `${req.method} /auth/v1${path} is not supported by the RepX auth server: it serves email and password accounts and authenticator apps only.`,
        );
    }
  };
}
