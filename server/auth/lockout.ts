import type { Queryable } from '../db/database';
import type { RateLimits } from '../http/rateLimit';
import { plainAddress } from '../http/address';

type Limit = { capacity: number; perSeconds: number };

/**
 * Wrong passwords and codes, bounded so that guessing is slow without shutting the owner out.
 *
 * - Per account and address (`accountFailures`, 10 in 15 minutes): a guesser at one address is
 *   locked out of that account; the owner elsewhere is not.
 * - Per account, from addresses it has not signed in from in the last 90 days (`strangerFailures`,
 *   30 in 15 minutes): guessing spread over many addresses is bounded too, while the owner, at an
 *   address they have used, stays exempt. (No CAPTCHA here: a known address is the owner's proof.)
 *
 * A guess is counted before it is checked, atomically in the database, and given back if it was
 * right: concurrent guesses cannot outrun the count. The account is keyed by its id, as the
 * database finds it, or by the address as the database lowers it (never JavaScript's lowering,
 * which differs: 'İ' for 'i' is the same account).
 */
export class Lockout {
  constructor(
    private readonly db: Queryable,
    private readonly limits: Pick<RateLimits, 'accountFailures' | 'strangerFailures'>,
  ) {}

  /** The account an email names, for counting: its user id, or the email as the database lowers it. */
  async accountOf(email: string): Promise<string> {
    const [row] = await this.db.query<{ key: string }>(
      `select coalesce((select id::text from auth.users where lower(email) = lower($1)), 'email:' || lower($1)) as key`,
      [email],
    );
    return row!.key;
  }

  /**
   * Counts a guess at `account` from `address` before it is checked: `wait` > 0 when it may not be
   * made now (nothing counted), else `right()` to call if it was right, which gives the count back.
   *
   * A code mailed to the account (`mailed`) is not held to the strangers' count: only the owner's
   * mailbox has it, each code takes a few wrong tries before it is spent, and one is mailed a
   * minute at most. So the owner, locked out at a new address by strangers' guesses, signs in
   * with a mailed code (docs/security.md).
   */
  async guess(
    account: string,
    address: string,
    { mailed = false }: { mailed?: boolean } = {},
  ): Promise<{ wait: number; right: () => Promise<void> }> {
    const taken: [string, Limit][] = [];
    const take = async (key: string, limit: Limit) => {
      const wait = await this.bucket(key, limit);
      if (wait === 0) taken.push([key, limit]);
      return wait;
    };
    const right = async () => {
      for (const [key, limit] of taken)
        await this.db.query('select local_server.rate_refund($1, $2)', [key, limit.capacity]);
    };
    let wait = await take(`guess:${account}:${address}`, this.limits.accountFailures);
    if (wait === 0 && !mailed && !(await this.knownAddress(account, address)))
      wait = await take(`guess:${account}`, this.limits.strangerFailures);
    if (wait > 0) {
      await right(); // what was counted before the refusal is given back
      return { wait, right: async () => undefined };
    }
    return { wait: 0, right };
  }

  /** Remembers that the user signed in from `ip` (a session started). */
  static async signedInFrom(tx: Queryable, userId: string, ip: string | null): Promise<void> {
    if (!ip) return;
    await tx.query(
      `insert into local_server.known_addresses (user_id, ip) values ($1, $2)
       on conflict (user_id, ip) do update set last_seen = now()`,
      [userId, ip],
    );
  }

  private async knownAddress(account: string, address: string): Promise<boolean> {
    if (!/^[0-9a-f-]{36}$/.test(account)) return false; // an address, not an account: no one's known place
    const [row] = await this.db.query<{ known: boolean }>(
      `select exists (select from local_server.known_addresses
                       where user_id = $1::uuid and host(ip) = $2 and last_seen > now() - interval '90 days') as known`,
      [account, plainAddress(address)],
    );
    return !!row?.known;
  }

  private async bucket(key: string, limit: Limit): Promise<number> {
    if (limit.capacity >= 1_000_000) return 0;
    const [row] = await this.db.query<{ wait: number }>('select local_server.rate_limit($1, $2, $3, true) as wait', [
      key,
      limit.capacity,
      limit.perSeconds,
    ]);
    return Number(row?.wait ?? 0);
  }
}
