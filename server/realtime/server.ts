import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { WebSocketServer } from 'ws';
import type { Database } from '../db/database';
import type { JwtKeys } from '../auth/jwt';
import type { ApiKeys } from '../auth/apiKeys';
import { createBroadcast } from './broadcast';
import { createChanges } from './changes';
import type { Realtime } from './context';
import { Hub } from './hub';
import { AddressBook, type RealtimeLimits } from './limits';
import { leave, resync } from './membership';
import { followDatabaseBroadcasts } from './messages';
import { createPresence } from './presence';
import { attachSockets } from './sockets';

/**
 * Supabase Realtime as supabase-js channels use it: Phoenix channels over a WebSocket, with
 * postgres_changes (changes.ts), broadcast (broadcast.ts, and from the database: messages.ts) and
 * presence (presence.ts). The socket
 * is sockets.ts's: who may open one; frames.ts reads what arrives, join.ts admits members, and
 * limits.ts keeps one client from stalling the others. `http` serves the REST broadcast endpoint,
 * which app.ts mounts at /realtime/v1/api.
 */
export async function createRealtime(opts: {
  db: Database;
  keys: JwtKeys;
  /** API keys, accepted as access tokens as REST accepts them. */
  apiKeys: ApiKeys;
  limits: RealtimeLimits;
  log?: (line: string) => void;
}) {
  const { db, log } = opts;
  const hub = new Hub({ soft: opts.limits.sendBufferBytes, hard: 8 * opts.limits.sendBufferBytes });
  /** This server among others over the same database (its own broadcasts do not come back to it). */
  const processId = randomUUID();
  const presence = createPresence({
    db,
    hub,
    processId,
    log,
    share: (room, diff) => broadcast.sharePresence(room, diff),
  });
  const broadcast = createBroadcast({
    db,
    hub,
    processId,
    limits: opts.limits,
    log,
    onPresenceDiff: (room, diff) => presence.fromElsewhere(room, diff.joins, diff.leaves),
  });
  const rt: Realtime = {
    ...opts,
    hub,
    addresses: new AddressBook(opts.limits),
    presence,
    broadcast,
    changes: await createChanges({ db, hub, log }),
    messages: followDatabaseBroadcasts({ db, hub, log }),
    fail: (e) => log?.(`realtime error: ${String(e)}`),
  };
  hub.onOverflow = (client, channel) => resync(rt, client, channel);

  // A session ended (signed out, suspended, ended by an admin): its channels end with it, as REST
  // refuses its token from the next request on.
  const unlistenSessions = await db.listen('repx_session_ended', (sessionId) => {
    for (const client of hub.clients) {
      for (const channel of [...client.channels.values()]) {
        if (channel.claims.session_id === sessionId)
          leave(rt, client, channel, 'InvalidJWTToken: The session has ended');
      }
    }
  });

  // A revoked API key ends the channels joined with it.
  const unlistenKeys = await db.listen('repx_api_key_revoked', (keyId) => {
    for (const client of hub.clients) {
      for (const channel of [...client.channels.values()]) {
        if (channel.claims.api_key_id === keyId) leave(rt, client, channel, 'InvalidJWTToken: The API key was revoked');
      }
    }
  });

  const servers: WebSocketServer[] = [];
  return {
    attach: (server: http.Server) => void servers.push(attachSockets(rt, server)),
    /** The REST broadcast endpoint (/realtime/v1/api/broadcast), for app.ts to mount. */
    http: broadcast.fromHttp,
    /** What Realtime holds and has done in this process (metrics.ts). */
    metrics: () => {
      let channels = 0;
      let bufferedMax = 0;
      let bufferedTotal = 0;
      for (const c of hub.clients) {
        channels += c.channels.size;
        bufferedTotal += c.socket.bufferedAmount;
        bufferedMax = Math.max(bufferedMax, c.socket.bufferedAmount);
      }
      return {
        sockets: hub.clients.size,
        channels,
        bufferedMax,
        bufferedTotal,
        ...hub.counters,
        databaseMessages: rt.messages.relayed(),
        visibilityDecisions: rt.changes.decisions(),
      };
    },
    close: async () => {
      await rt.changes.close();
      rt.messages.stop();
      broadcast.close();
      await presence.close();
      await unlistenSessions();
      await unlistenKeys();
      for (const c of hub.clients) c.socket.terminate();
      for (const wss of servers) wss.close();
    },
  };
}
