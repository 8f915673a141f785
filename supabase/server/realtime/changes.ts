import type { Database } from '../db/database';
import type { Claims } from '../auth/jwt';
import { callerStatement, type CallContext } from '../db/caller';
import { quoteIdent } from '../db/quote';
import { followById } from './follow';
import { parseFilter } from './protocol';
import type { Hub } from './hub';

/** What a table change notification (private.notify_realtime) carries. */
interface Change {
  schema: string;
  table: string;
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  commit_timestamp: string;
  record: Record<string, unknown>;
}

/** What SQL sees of a subscriber's re-read: no HTTP request behind it. */
const SUBSCRIBER: CallContext = { method: 'GET', path: '/realtime/v1', headers: {}, cookies: {} };

/**
 * postgres_changes: a table's changes to the channels bound to it. Changes come from NOTIFY
 * 'repx_realtime' (tables that change now and then, supabase/schemas/realtime.sql) and from
 * following public.market_events by id (the tape, which must not NOTIFY inside trading). Each is
 * delivered to a subscriber only if that subscriber may read the row, checked as the subscriber's
 * role, so row-level security decides, as Realtime does.
 */
export async function createChanges(opts: { db: Database; hub: Hub; log?: (line: string) => void }) {
  const { db, hub, log } = opts;

  /** Whether the subscriber may read the changed row: re-read as them (an ended session reads nothing). */
  async function visibleTo(claims: Claims, change: Change): Promise<boolean> {
    const id = change.record.id;
    if (id === undefined) return false;
    try {
      const [, rows] = await db.pipeline([
        callerStatement({ role: String(claims.role ?? 'anon'), claims }, SUBSCRIBER, true),
        { text: `select 1 from ${quoteIdent(change.schema)}.${quoteIdent(change.table)} where id = $1`, values: [id] },
      ]);
      return rows!.length > 0;
    } catch {
      return false;
    }
  }

  async function deliver(change: Change): Promise<void> {
    const columns = Object.keys(change.record).map((name) => ({ name, type: 'text' }));
    for (const client of hub.clients) {
      for (const channel of client.channels.values()) {
        const ids = channel.bindings
          .filter(
            (b) =>
              b.schema === change.schema &&
              (!b.table || b.table === change.table) &&
              (b.event === '*' || b.event.toUpperCase() === change.type),
          )
          .filter((b) => {
            const filter = parseFilter(b.filter);
            return !filter || filter === 'unsupported' || String(change.record[filter.column]) === filter.value;
          })
          .map((b) => b.id);
        if (!ids.length || !(await visibleTo(channel.claims, change))) continue;
        hub.send(client, {
          joinRef: null,
          ref: null,
          topic: channel.topic,
          event: 'postgres_changes',
          payload: {
            ids,
            data: {
              schema: change.schema,
              table: change.table,
              commit_timestamp: change.commit_timestamp,
              type: change.type,
              columns,
              record: change.record,
              errors: null,
            },
          },
        });
      }
    }
  }

  const onChange = (change: Change) =>
    void deliver(change).catch((e: unknown) => log?.(`realtime error: ${String(e)}`));
  const unlisten = await db.listen('repx_realtime', (p) => onChange(JSON.parse(p) as Change));
  const marketEvents = followById(
    db,
    'public',
    'market_events',
    ({ record, commit_timestamp }) =>
      onChange({ schema: 'public', table: 'market_events', type: 'INSERT', commit_timestamp, record }),
    {
      log,
      wanted: () =>
        [...hub.clients].some((c) =>
          [...c.channels.values()].some((ch) =>
            ch.bindings.some((b) => b.schema === 'public' && (!b.table || b.table === 'market_events')),
          ),
        ),
    },
  );

  return {
    /** A new subscriber: look for market events at once rather than at the idle pace. */
    wake: () => marketEvents.wake(),
    close: async () => {
      marketEvents.stop();
      await unlisten();
    },
  };
}
