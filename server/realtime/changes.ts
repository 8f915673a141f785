import type { Database } from '../db/database';
import { quoteIdent } from '../db/quote';
import { parseFilter } from './protocol';
import type { Channel, Client, Hub } from './hub';

/** What a table change notification (private.notify_realtime) carries. */
interface Change {
  schema: string;
  table: string;
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  commit_timestamp: string;
  record: Record<string, unknown>;
}

/** How long what a table's policies say of its readers is kept before they are read again. */
const POLICY_TTL_MS = 30_000;

/**
 * postgres_changes: a table's changes to the channels bound to it, for the tables that change now
 * and then and NOTIFY 'repx_realtime' (supabase/schemas/realtime.sql; the market goes out as
 * broadcasts, messages.ts). Row-level security decides who receives a change, as Realtime's
 * WALRUS decides it: once per change, not once per subscriber. Subscribers whose role every row
 * of the table is open to (a policy `using (true)` and the grant) receive it without a query; the
 * others are grouped by their claims and decided in one statement (local_server.visible_to), which
 * reads the row as each distinct caller. Frames go out without waiting on any socket.
 */
export async function createChanges(opts: { db: Database; hub: Hub; log?: (line: string) => void }) {
  const { db, hub, log } = opts;
  const openness = new Map<string, { roles: Promise<Set<string>>; at: number }>();
  let decisions = 0;

  /** The roles that may read every row of the table, by its grants and its policies. */
  function openTo(schema: string, table: string): Promise<Set<string>> {
    const key = `${schema}.${table}`;
    const known = openness.get(key);
    if (known && Date.now() - known.at < POLICY_TTL_MS) return known.roles;
    const roles = db
      .query<{ role: string }>(
        `select r.role from unnest(array['anon', 'authenticated', 'service_role']) r (role), pg_class c
          where c.oid = $1::regclass and has_table_privilege(r.role, c.oid, 'SELECT')
            and (not c.relrowsecurity or r.role = 'service_role'
                 or (exists (select from pg_policies p where p.schemaname = $2 and p.tablename = $3
                              and p.permissive = 'PERMISSIVE' and p.cmd in ('SELECT', 'ALL') and p.qual = 'true'
                              and (p.roles && array[r.role::name, 'public'::name]))
                     and not exists (select from pg_policies p where p.schemaname = $2 and p.tablename = $3
                                      and p.permissive = 'RESTRICTIVE' and p.cmd in ('SELECT', 'ALL')
                                      and (p.roles && array[r.role::name, 'public'::name]))))`,
        [`${quoteIdent(schema)}.${quoteIdent(table)}`, schema, table],
      )
      .then((rows) => new Set(rows.map((r) => r.role)))
      .catch(() => new Set<string>());
    openness.set(key, { roles, at: Date.now() });
    return roles;
  }

  /** The subscriptions a change matches: each member's channel with its bindings' ids. */
  function matches(change: Change): { client: Client; channel: Channel; ids: number[] }[] {
    const out: { client: Client; channel: Channel; ids: number[] }[] = [];
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
        if (ids.length) out.push({ client, channel, ids });
      }
    }
    return out;
  }

  async function deliver(change: Change): Promise<void> {
    const subscribers = matches(change);
    if (!subscribers.length || change.record.id === undefined) return;
    const open = await openTo(change.schema, change.table);
    const role = (c: Channel) => String(c.claims.role ?? 'anon');
    const byClaims = new Map<string, typeof subscribers>();
    const visible: typeof subscribers = [];
    for (const s of subscribers) {
      if (open.has(role(s.channel))) {
        visible.push(s);
        continue;
      }
      const key = JSON.stringify(s.channel.claims);
      byClaims.set(key, [...(byClaims.get(key) ?? []), s]);
    }
    if (byClaims.size) {
      decisions++;
      const keys = [...byClaims.keys()];
      try {
        const [row] = await db.query<{ verdicts: boolean[] }>(
          'select local_server.visible_to($1::regclass, $2, $3::jsonb[]) as verdicts',
          [`${quoteIdent(change.schema)}.${quoteIdent(change.table)}`, String(change.record.id), keys],
        );
        keys.forEach((key, i) => row!.verdicts[i] && visible.push(...byClaims.get(key)!));
      } catch (e) {
        log?.(`realtime error: deciding who sees a change of ${change.table}: ${String(e)}`);
      }
    }
    const columns = Object.keys(change.record).map((name) => ({ name, type: 'text' }));
    const data = {
      schema: change.schema,
      table: change.table,
      commit_timestamp: change.commit_timestamp,
      type: change.type,
      columns,
      record: change.record,
      errors: null,
    };
    for (const { client, channel, ids } of visible) {
      hub.send(client, {
        joinRef: null,
        ref: null,
        topic: channel.topic,
        event: 'postgres_changes',
        payload: { ids, data },
      });
    }
  }

  const onChange = (change: Change) =>
    void deliver(change).catch((e: unknown) => log?.(`realtime error: ${String(e)}`));
  const unlisten = await db.listen('repx_realtime', (p) => onChange(JSON.parse(p) as Change));

  return {
    /** Statements run to decide who may see a change, since the process started. */
    decisions: () => decisions,
    close: async () => {
      await unlisten();
    },
  };
}
