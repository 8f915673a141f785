import type { Database } from '../db/database';
import { mayUseTopic } from './authorize';
import { followById } from './follow';
import type { Broadcast, Frame } from './protocol';
import { subTopic, type Client, type Hub, type RoomKey } from './hub';
import type { RealtimeLimits } from './limits';
import { broadcastOverHttp } from './broadcastHttp';
import type { Metas } from './presence';

/**
 * Broadcast: a member's message relayed to the other members of its room (and to itself with
 * `self: true`), from a socket or from the REST endpoint (channel.httpSend). A private room's
 * messages need write access by the policies on realtime.messages. Over PostgreSQL each process
 * relays to its own members at once and writes the message to local_server.broadcasts, which the
 * other processes follow by id.
 */
export function createBroadcast(opts: {
  db: Database;
  hub: Hub;
  processId: string;
  limits: RealtimeLimits;
  /** A presence diff another process wrote (presence.ts applies it to this process's members). */
  onPresenceDiff: (room: RoomKey, diff: { joins: Metas; leaves: Metas }) => void;
  log?: (line: string) => void;
}) {
  const { db, hub, processId, limits, log } = opts;
  const shared = db.kind === 'postgres';

  const relay = (room: RoomKey, b: Broadcast, sender: Client | null) => void hub.relay(room, b, sender);

  function publish(room: RoomKey, b: Broadcast, sender: Client | null): void {
    relay(room, b, sender);
    if (!shared) return;
    void db
      .query(
        'insert into local_server.broadcasts (origin, topic, event, payload, bytes, meta) values ($1, $2, $3, $4, $5, $6)',
        [
          processId,
          room,
          b.event,
          b.binary ? null : JSON.stringify(b.payload ?? null),
          b.binary ? (b.payload as Buffer) : null,
          b.meta ? JSON.stringify(b.meta) : null,
        ],
      )
      .catch((e: unknown) => log?.(`realtime error: sharing a broadcast: ${String(e)}`));
  }

  /** A member's broadcast over its socket: relayed and acknowledged, or refused in words. */
  async function fromSocket(sender: Client, f: Frame, b: Broadcast): Promise<void> {
    const channel = sender.channels.get(b.topic);
    if (!channel) {
      if (f.ref) hub.reply(sender, f, 'error', { reason: 'You are not a member of this channel.' });
      return;
    }
    if (channel.private && !(await mayUseTopic(db, channel.claims, subTopic(b.topic), 'write'))) {
      if (f.ref)
        hub.reply(sender, f, 'error', {
          reason: `Unauthorized: You do not have permissions to write to this Channel topic: ${subTopic(b.topic)}`,
        });
      return;
    }
    publish(channel.room, b, sender);
    if (f.ref) hub.reply(sender, f, 'ok', {});
  }

  // Broadcasts and presence diffs made through the other server processes (PGlite is one process).
  const follower = !shared
    ? null
    : followById(
        db,
        'local_server',
        'broadcasts',
        ({ record: r }) => {
          if (r.origin === processId) return;
          const room = String(r.topic);
          if (r.kind === 'presence') return opts.onPresenceDiff(room, r.payload as { joins: Metas; leaves: Metas });
          const bytes = typeof r.bytes === 'string' ? Buffer.from(r.bytes.replace(/^\\x/, ''), 'hex') : null;
          relay(
            room,
            {
              topic: room,
              event: String(r.event),
              payload: bytes ?? r.payload,
              binary: bytes !== null,
              ...(r.meta ? { meta: r.meta as Record<string, unknown> } : {}),
            },
            null,
          );
        },
        { log, wanted: () => hub.clients.size > 0 },
      );

  return {
    fromSocket,
    /** POST /realtime/v1/api/broadcast[/<topic>/events/<event>] (broadcastHttp.ts). */
    fromHttp: broadcastOverHttp({ db, limits, publish }),
    /** A presence diff for the other processes, written beside the broadcasts they follow. */
    sharePresence: async (room: RoomKey, diff: { joins: Metas; leaves: Metas }) => {
      await db.query(
        `insert into local_server.broadcasts (origin, kind, topic, event, payload) values ($1, 'presence', $2, 'presence_diff', $3)`,
        [processId, room, JSON.stringify(diff)],
      );
    },
    close: () => follower?.stop(),
  };
}
