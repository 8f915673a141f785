import type { Queryable } from '../db/database';

/**
 * Token buckets, as GoTrue limits its endpoints: each key (an address, an account) holds up to
 * `capacity` tokens and regains them steadily over `perSeconds`; a request takes one or is refused
 * with how long to wait. The buckets live in the database (local_server.rate_limit), so every
 * server process over one PostgreSQL counts together.
 */
export class RateLimiter {
  constructor(
    private readonly db: Queryable,
    readonly name: string,
    readonly capacity: number,
    readonly perSeconds: number,
  ) {}

  private async bucket(key: string, take: boolean): Promise<number> {
    if (this.capacity >= UNLIMITED.capacity) return 0;
    const [row] = await this.db.query<{ wait: number }>('select local_server.rate_limit($1, $2, $3, $4) as wait', [
      `${this.name}:${key}`,
      this.capacity,
      this.perSeconds,
      take,
    ]);
    return Number(row?.wait ?? 0);
  }

  /** Seconds to wait before a token is available, or 0 if one is. */
  waitFor(key: string): Promise<number> {
    return this.bucket(key, false);
  }

  /** Takes a token: 0 if it was there, else the seconds to wait (nothing taken). */
  take(key: string): Promise<number> {
    return this.bucket(key, true);
  }
}

const UNLIMITED = { capacity: 1_000_000, perSeconds: 1 };

export interface RateLimits {
  /** Sign-in attempts per address. */
  signIn: { capacity: number; perSeconds: number };
  /** Sign-ups per address. */
  signUp: { capacity: number; perSeconds: number };
  /** Token refreshes per address. */
  refresh: { capacity: number; perSeconds: number };
  /** Wrong passwords and codes per account and address (auth/lockout.ts). */
  accountFailures: { capacity: number; perSeconds: number };
  /** Wrong passwords and codes per account, from addresses it has not signed in from. */
  strangerFailures: { capacity: number; perSeconds: number };
  /** Password changes per account. */
  passwordChange: { capacity: number; perSeconds: number };
  /** Password recovery emails asked for, per address. */
  recovery: { capacity: number; perSeconds: number };
  /** Password recovery emails per email address (GoTrue's one a minute). */
  recoveryEmail: { capacity: number; perSeconds: number };
  /** Repeat sign-ups of one address still waiting for its code, inside the minute of its last mail. */
  signUpRepeat: { capacity: number; perSeconds: number };
  /** Storage uploads per person (or per address, without a session). */
  upload: { capacity: number; perSeconds: number };
  /** Requests made with one API key: a burst of `capacity`, then capacity/perSeconds a second (docs/api.md). */
  apiKey: { capacity: number; perSeconds: number };
  /** Requests made with all of one account's API keys together. */
  apiAccount: { capacity: number; perSeconds: number };
}

/** GoTrue-like defaults: bursts of 30 per address in 5 minutes; 10 wrong passwords per account in 15. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  signIn: { capacity: 30, perSeconds: 300 },
  signUp: { capacity: 30, perSeconds: 300 },
  refresh: { capacity: 150, perSeconds: 300 },
  accountFailures: { capacity: 10, perSeconds: 900 },
  strangerFailures: { capacity: 30, perSeconds: 900 },
  passwordChange: { capacity: 10, perSeconds: 300 },
  recovery: { capacity: 10, perSeconds: 3600 },
  recoveryEmail: { capacity: 1, perSeconds: 60 },
  signUpRepeat: { capacity: 5, perSeconds: 900 },
  upload: { capacity: 10, perSeconds: 60 },
  apiKey: { capacity: 60, perSeconds: 6 },
  apiAccount: { capacity: 120, perSeconds: 6 },
};

/** For test suites and benchmarks, which sign up and in far more often than people do. */
export const NO_RATE_LIMITS: RateLimits = {
  signIn: UNLIMITED,
  signUp: UNLIMITED,
  refresh: UNLIMITED,
  accountFailures: UNLIMITED,
  strangerFailures: UNLIMITED,
  passwordChange: UNLIMITED,
  recovery: UNLIMITED,
  recoveryEmail: UNLIMITED,
  signUpRepeat: UNLIMITED,
  upload: UNLIMITED,
  apiKey: UNLIMITED,
  apiAccount: UNLIMITED,
};

/**
 * RATE_LIMITS="signIn=30/300,signUp=10/3600" overrides some of the defaults (count/seconds);
 * RATE_LIMITS=off lifts them all (tests, benchmarks).
 */
export function rateLimitsFromEnv(text: string | undefined): RateLimits {
  if (text === 'off') return NO_RATE_LIMITS;
  const limits = structuredClone(DEFAULT_RATE_LIMITS);
  for (const part of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(\w+)=(\d+)\/(\d+)$/.exec(part);
    if (!m || !(m[1]! in limits))
      throw new Error(
        `RATE_LIMITS: cannot read "${part}" (expected name=count/seconds, names: ${Object.keys(limits).join(', ')})`,
      );
    limits[m[1] as keyof RateLimits] = { capacity: Number(m[2]), perSeconds: Number(m[3]) };
  }
  return limits;
}
