import type http from 'node:http';
import { HttpError, bearer } from '../http/io';
import type { ApiQuota } from '../http/apiQuota';
import type { RequestIdentity } from '../db/caller';
import { restError } from '../rest/errors';
import { isApiKey, type ApiKeys } from './apiKeys';
import type { JwtKeys } from './jwt';

/** The roles a request may run as. */
export const API_ROLES = new Set(['anon', 'authenticated', 'service_role']);

/**
 * Who a request is, by PostgREST's rule: the role and claims come from the Authorization bearer
 * JWT; none means anon. An API key (apiKeys.ts) stands for its owner's claims, and its requests are
 * counted against its rate limits (http/apiQuota.ts), which every answer to it reports.
 */
export function identifier(keys: JwtKeys, apiKeys: ApiKeys, quota: ApiQuota) {
  return async function identify(req: http.IncomingMessage, res: http.ServerResponse): Promise<RequestIdentity> {
    const token = bearer(req);
    if (!token) return { role: 'anon', claims: { role: 'anon' } };
    if (isApiKey(token)) {
      const key = await apiKeys.verify(token, req.socket.remoteAddress ?? '');
      if (!key.ok)
        throw new HttpError(
          401,
          { code: 'PGRST301', details: 'api_key', hint: null, message: key.message },
          { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="API key refused"' },
        );
      await quota.charge(key.claims.api_key_id as string, key.claims.sub!, res);
      return { role: 'authenticated', claims: key.claims };
    }
    const verified = await keys.verify(token);
    if (!verified.ok) {
      const expired = verified.reason === 'expired';
      throw new HttpError(
        401,
        expired
          ? { code: 'PGRST303', details: null, hint: null, message: 'JWT expired' }
          : { code: 'PGRST301', details: null, hint: null, message: 'JWT could not be decoded or verified' },
        {
          'WWW-Authenticate': `Bearer error="invalid_token", error_description="${expired ? 'JWT expired' : 'JWT invalid'}"`,
        },
      );
    }
    if (!API_ROLES.has(verified.claims.role)) {
      throw restError(401, '22023', `role "${verified.claims.role}" does not exist`);
    }
    return { role: verified.claims.role, claims: verified.claims };
  };
}
