import type { Database } from './database';

/** How far behind the primary the replica may be and still serve reads (REPLICA_MAX_LAG_MS). */
const DEFAULT_REPLICA_MAX_LAG_MS = 1_000;
/** How often the replica's lag is read. */
const WATCH_MS = 200;
/** How long a read of the lag may take before the replica counts as not answering. */
const WATCH_TIMEOUT_MS = 1_000;
/**
 * How long a read may wait on the replica before the primary answers it instead: a replica that
 * died does not always refuse at once (a pooler in front of it waits to reconnect).
 */
export const REPLICA_ANSWER_MS = 2_000;

/** `work`, or a rejection after `ms`. */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * A streaming replica of the primary for the reads that tolerate its lag (rest/replica.ts says
 * which). Its lag is read every 200 ms: the primary's WAL position, kept with the time it was
 * seen, against the position the replica has replayed; the lag is the age of the oldest position
 * not yet replayed. While the replica answers and its lag is within `maxLagMs`, it is `usable`;
 * otherwise reads go to the primary at once, and back to the replica when it catches up.
 */
export class Replica {
  private seen: { lsn: bigint; at: number }[] = [];
  private lagMs = Infinity;
  private lastGood = 0;
  private timer?: NodeJS.Timeout;
  /** Reads the replica served, and reads that fell back to the primary, since the process started. */
  readonly counters = { served: 0, fellBack: 0 };

  constructor(
    readonly db: Database,
    private readonly primary: Database,
    readonly maxLagMs = DEFAULT_REPLICA_MAX_LAG_MS,
    private readonly log?: (line: string) => void,
  ) {}

  start(): void {
    const tick = () => {
      this.watch()
        .catch((error: unknown) => this.down(error))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, WATCH_MS);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Whether a read may go to the replica now. */
  get usable(): boolean {
    return this.lagMs <= this.maxLagMs && Date.now() - this.lastGood < this.maxLagMs + WATCH_MS * 2;
  }

  /** The replica's lag as last read, in ms (Infinity while it does not answer). */
  get lag(): number {
    return this.lagMs;
  }

  /** A read on the replica failed as the replica's fault: reads go to the primary until it answers again. */
  down(error: unknown): void {
    if (this.lagMs !== Infinity)
      this.log?.(
        `replica: unusable (${error instanceof Error ? error.message : String(error)}); reading from the primary`,
      );
    this.lagMs = Infinity;
  }

  private async watch(): Promise<void> {
    const [primary] = await this.primary.query<{ lsn: string }>(`select (pg_current_wal_lsn() - '0/0')::text as lsn`);
    const now = Date.now();
    this.seen.push({ lsn: BigInt(primary!.lsn), at: now });
    if (this.seen.length > 500) this.seen.shift(); // a replica that stopped answering keeps no history
    const [replica] = await within(
      this.db.query<{ replayed: string | null; standby: boolean }>(
        `select (pg_last_wal_replay_lsn() - '0/0')::text as replayed, pg_is_in_recovery() as standby`,
      ),
      WATCH_TIMEOUT_MS,
      'the replica',
    );
    if (!replica?.standby || replica.replayed === null) throw new Error('not a standby');
    const replayed = BigInt(replica.replayed);
    this.seen = this.seen.filter((s) => s.lsn > replayed);
    const wasUsable = this.usable;
    this.lagMs = this.seen.length ? Date.now() - this.seen[0]!.at : 0;
    this.lastGood = Date.now();
    if (!wasUsable && this.usable) this.log?.(`replica: usable again (lag ${this.lagMs} ms)`);
  }
}
