import type { Database } from '../db/database';
import { followById } from './follow';
import { roomKey, type Hub } from './hub';

/**
 * Broadcast from the database (realtime.send, as on a Supabase project): each message the database
 * writes to realtime.messages goes to the members of its topic in this process, who were
 * authorized once, when they joined, by the policies on realtime.messages. Each process follows the
 * table by id itself, so every member hears every message once, whichever process its socket is
 * on, and a message costs this process one read shared by all its members, however many they are.
 */
export function followDatabaseBroadcasts(opts: { db: Database; hub: Hub; log?: (line: string) => void }) {
  const { db, hub, log } = opts;
  let relayed = 0;
  const follower = followById(
    db,
    'realtime',
    'messages',
    ({ record }) => {
      if (record.extension !== 'broadcast') return;
      hub.relay(roomKey(String(record.topic), record.private !== false), {
        topic: String(record.topic),
        event: String(record.event ?? ''),
        payload: record.payload,
        binary: false,
      });
      relayed++;
    },
    { log, timeColumn: 'inserted_at', wanted: () => hub.clients.size > 0 },
  );
  return {
    /** A member joined: look now rather than at the idle pace. */
    wake: follower.wake,
    /** Messages read from the database and relayed since the process started. */
    relayed: () => relayed,
    stop: follower.stop,
  };
}
