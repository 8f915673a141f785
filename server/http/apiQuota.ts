import type { ServerResponse } from 'node:http';
import type { Queryable } from '../db/database';
import { HttpError } from './io';
import type { RateLimits } from './rateLimit';

const UNLIMITED = 1_000_000;

/**
 * The rate limits of requests made with an API key (docs/api.md): a token bucket per key and one
 * per account, in the database so that every host counts together (local_server.api_quota). Every
 * answer to a key says where it stands (RateLimit-Limit, -Remaining, -Reset, as the IETF draft
 * names them); past a limit the request is refused with 429 and Retry-After, and nothing runs.
 * A person's own browser session is not counted here: it keeps the limits it has.
 */
export class ApiQuota {
  constructor(
    private readonly db: Queryable,
    private readonly limits: Pick<RateLimits, 'apiKey' | 'apiAccount'>,
  ) {}

  async charge(keyId: string, userId: string, res: ServerResponse): Promise<void> {
    const { apiKey, apiAccount } = this.limits;
    if (apiKey.capacity >= UNLIMITED && apiAccount.capacity >= UNLIMITED) {
      return setHeaders(res, { lim: apiKey.capacity, remaining: apiKey.capacity, reset: 0 });
    }
    const [q] = await this.db.query<{ lim: number; remaining: number; reset: number; wait: number }>(
      'select * from local_server.api_quota($1, $2, $3, $4, $5, $6)',
      [
        `apiKey:${keyId}`,
        apiKey.capacity,
        apiKey.perSeconds,
        `apiAccount:${userId}`,
        apiAccount.capacity,
        apiAccount.perSeconds,
      ],
    );
    if (!q) return;
    setHeaders(res, q);
    if (q.wait > 0)
      throw new HttpError(
        429,
        {
          code: 'over_request_rate_limit',
          message: `Too many requests with this API key: wait ${q.wait} second${q.wait === 1 ? '' : 's'} (docs/api.md has the limits).`,
        },
        { 'Retry-After': String(q.wait) },
      );
  }
}

function setHeaders(res: ServerResponse, q: { lim: number; remaining: number; reset: number }): void {
  res.setHeader('RateLimit-Limit', String(q.lim));
  res.setHeader('RateLimit-Remaining', String(q.remaining));
  res.setHeader('RateLimit-Reset', String(q.reset));
}
