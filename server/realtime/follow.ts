import type { Queryable } from '../db/database';
import { quoteIdent } from '../db/quote';

export interface FollowOptions {
  /** How often to look for new rows. */
  everyMs?: number;
  /** How long a missing id is waited for (a transaction that took it may still commit). */
  gapMs?: number;
  /** Whether anyone listens now: when nobody does, it looks every `idleMs` only, to keep its place. */
  wanted?: () => boolean;
  idleMs?: number;
  /** The column that says when a row was written (created_at; realtime.messages has inserted_at). */
  timeColumn?: string;
  log?: (line: string) => void;
}

/** A row as Realtime sends it, and when it was committed (as the NOTIFY payload had it). */
export interface FollowedRow {
  record: Record<string, unknown>;
  commit_timestamp: string;
}

/**
 * Follows an append-only table by its identity column, outside the writers' transactions: a
 * NOTIFY inside them would take PostgreSQL's global notification lock at every commit and
 * serialize all trading. Ids are handed out before commit, so a smaller id can become visible
 * after a larger one: an id skipped over is remembered and asked for again until it appears or
 * `gapMs` passes (its transaction rolled back). Works the same on PGlite and on PostgreSQL, and
 * every server process over one database sees every row.
 */
export function followById(
  db: Queryable,
  schema: string,
  table: string,
  onRow: (row: FollowedRow) => void,
  options: FollowOptions = {},
) {
  const { everyMs = 50, gapMs = 10_000, idleMs = 1000, wanted = () => true, timeColumn = 'created_at', log } = options;
  const from = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const columns = `t.id::text as id, to_jsonb(t) as record,
                   to_char(t.${quoteIdent(timeColumn)} at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as commit_timestamp`;
  // Two index range scans (an `or` of the two conditions would read the whole table).
  const newer = `select ${columns} from ${from} t where t.id > $1 order by t.id limit 1000`;
  const newerOrLate = `(${newer}) union all (select ${columns} from ${from} t where t.id = any($2::bigint[]) and t.id <= $1)`;
  let last: bigint | null = null;
  const gaps = new Map<bigint, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function poll() {
    if (last === null) {
      const [row] = await db.query<{ max: string | null }>(`select max(id)::text as max from ${from}`);
      last = BigInt(row?.max ?? 0);
      return;
    }
    const now = Date.now();
    for (const [id, since] of gaps) if (now - since > gapMs) gaps.delete(id);
    const rows = gaps.size
      ? await db.query<FollowedRow & { id: string }>(newerOrLate, [last.toString(), [...gaps.keys()].map(String)])
      : await db.query<FollowedRow & { id: string }>(newer, [last.toString()]);
    for (const { id: text, record, commit_timestamp } of rows) {
      const id = BigInt(text);
      if (!gaps.delete(id)) {
        if (id <= last) continue;
        // A jump of more than a few thousand ids is not a set of transactions still running.
        if (id - last < 5_000n) for (let missing = last + 1n; missing < id; missing++) gaps.set(missing, now);
        last = id;
      }
      onRow({ record, commit_timestamp });
    }
  }

  let polling = false;
  const loop = async () => {
    if (stopped || polling) return;
    polling = true;
    clearTimeout(timer);
    try {
      await poll();
    } catch (error) {
      log?.(`realtime: following ${from} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    polling = false;
    if (!stopped) timer = setTimeout(() => void loop(), wanted() ? everyMs : idleMs);
  };
  void loop();
  return {
    /** Someone started listening: look now rather than at the next idle tick. */
    wake: () => void loop(),
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
