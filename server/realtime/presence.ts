import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database';
import type { Channel, Client, Hub, RoomKey } from './hub';

export type Metas = Record<string, { metas: Record<string, unknown>[] }>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The presence key a member tracks under: the one it asked for (config.presence.key), or one of
 * its own. A key shaped like a user id must be the member's own: a page that counts people by
 * their ids (the trading page's watchers) must not be told that someone else is there.
 */
export function presenceKey(asked: unknown, sub: unknown): string | { refused: string } {
  if (typeof asked !== 'string' || !asked) return randomUUID();
  if (asked.length > 100) return { refused: 'A presence key has at most 100 characters.' };
  if (UUID.test(asked) && asked !== sub) return { refused: "A presence key cannot be another user's id." };
  return asked;
}

/**
 * Presence: per room, what each member tracks (one meta per member, a new track replacing the
 * last). Over PostgreSQL it is shared through the database, since other server processes may
 * serve the same rooms: each member is a row of local_server.presence, kept fresh by its process
 * and aged out if that process dies, and joins and leaves travel as broadcasts do.
 */
export function createPresence(opts: {
  db: Database;
  hub: Hub;
  processId: string;
  /** Hands a diff to the other processes (broadcast.ts writes it beside broadcasts). */
  share: (room: RoomKey, diff: { joins: Metas; leaves: Metas }) => Promise<void>;
  log?: (line: string) => void;
}) {
  const { db, hub, processId, log } = opts;
  const shared = db.kind === 'postgres';
  const rooms = new Map<RoomKey, Map<Client, { key: string; meta: Record<string, unknown> }>>();

  /** The room's presence as Phoenix gives it: key -> { metas }, every process's members included. */
  async function state(room: RoomKey): Promise<Metas> {
    const out: Metas = {};
    const refs = new Set<unknown>();
    const add = (key: string, meta: Record<string, unknown>) => {
      if (refs.has(meta.phx_ref)) return;
      refs.add(meta.phx_ref);
      (out[key] ??= { metas: [] }).metas.push(meta);
    };
    for (const { key, meta } of rooms.get(room)?.values() ?? []) add(key, meta);
    if (shared) {
      const rows = await db.query<{ key: string; meta: Record<string, unknown> }>(
        `select key, meta from local_server.presence where topic = $1 and seen_at > now() - interval '1 minute'`,
        [room],
      );
      for (const r of rows) add(r.key, r.meta);
    }
    return out;
  }

  /** Tells this process's members of the room. */
  function diff(room: RoomKey, joins: Metas, leaves: Metas): void {
    for (const [client, channel] of hub.members(room)) {
      hub.send(client, {
        joinRef: channel.joinRef,
        ref: null,
        topic: channel.topic,
        event: 'presence_diff',
        payload: { joins, leaves },
      });
    }
  }

  /** Tells the other server processes: the member's row, and the diff their members receive. */
  function tellOthers(room: RoomKey, joins: Metas, leaves: Metas): void {
    if (!shared) return;
    const left = Object.values(leaves).flatMap((m) => m.metas.map((meta) => String(meta.phx_ref)));
    void (async () => {
      if (left.length)
        await db.query('delete from local_server.presence where topic = $1 and ref = any($2)', [room, left]);
      for (const [key, { metas }] of Object.entries(joins)) {
        for (const meta of metas) {
          await db.query(
            'insert into local_server.presence (topic, ref, origin, key, meta) values ($1, $2, $3, $4, $5)',
            [room, String(meta.phx_ref), processId, key, JSON.stringify(meta)],
          );
        }
      }
      await opts.share(room, { joins, leaves });
    })().catch((e: unknown) => log?.(`realtime error: sharing presence: ${String(e)}`));
  }

  function track(client: Client, channel: Channel, payload: Record<string, unknown>): void {
    const members = rooms.get(channel.room) ?? new Map();
    rooms.set(channel.room, members);
    const before = members.get(client);
    const meta = { ...payload, phx_ref: randomUUID() };
    members.set(client, { key: channel.presenceKey, meta });
    const joins = { [channel.presenceKey]: { metas: [meta] } };
    const leaves = before ? { [before.key]: { metas: [before.meta] } } : {};
    diff(channel.room, joins, leaves);
    tellOthers(channel.room, joins, leaves);
  }

  function untrack(client: Client, channel: Channel): void {
    const members = rooms.get(channel.room);
    const before = members?.get(client);
    if (!members || !before) return;
    members.delete(client);
    if (!members.size) rooms.delete(channel.room);
    const leaves = { [before.key]: { metas: [before.meta] } };
    diff(channel.room, {}, leaves);
    tellOthers(channel.room, {}, leaves);
  }

  // This process's members stay present for the others while it lives.
  const heartbeat = setInterval(() => {
    if (shared && rooms.size) {
      void db
        .query('update local_server.presence set seen_at = now() where origin = $1', [processId])
        .catch((e: unknown) => log?.(`realtime error: presence heartbeat: ${String(e)}`));
    }
  }, 20_000);
  heartbeat.unref();

  return {
    state,
    track,
    untrack,
    /** A diff from another process, for this process's members. */
    fromElsewhere: diff,
    close: async () => {
      clearInterval(heartbeat);
      if (shared)
        await db.query('delete from local_server.presence where origin = $1', [processId]).catch(() => undefined);
    },
  };
}
