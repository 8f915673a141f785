import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Database } from '../db/database';
import type { JwtKeys, Claims } from '../auth/jwt';
import { mayUseTopic } from './authorize';
import { createBroadcast } from './broadcast';
import { createChanges } from './changes';
import { Hub, roomKey, subTopic, type Channel, type Client } from './hub';
import { AddressBook, Bucket, type RealtimeLimits } from './limits';
import { createPresence, presenceKey } from './presence';
import { decode, decodeBroadcastPush, parseFilter, type Binding, type Frame } from './protocol';

let nextBindingId = 1;

interface JoinConfig {
  postgres_changes?: { event: string; schema: string; table?: string; filter?: string }[];
  broadcast?: { self?: boolean };
  presence?: { key?: string };
  private?: boolean;
}

/**
 * Supabase Realtime as supabase-js channels use it: Phoenix channels over a WebSocket, with
 * postgres_changes (changes.ts), broadcast (broadcast.ts) and presence (presence.ts). This module
 * owns the socket: who may open one, joins, leaves, token updates, heartbeats, and the limits
 * (limits.ts) that keep one client from stalling the others. `http` serves the REST broadcast
 * endpoint, which app.ts mounts at /realtime/v1/api.
 */
export async function createRealtime(opts: {
  db: Database;
  keys: JwtKeys;
  limits: RealtimeLimits;
  log?: (line: string) => void;
}) {
  const { db, keys, limits, log } = opts;
  const hub = new Hub();
  /** This server among others over the same database (its own broadcasts do not come back to it). */
  const processId = randomUUID();
  const addresses = new AddressBook(limits);
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
    limits,
    log,
    onPresenceDiff: (room, diff) => presence.fromElsewhere(room, diff.joins, diff.leaves),
  });
  const changes = await createChanges({ db, hub, log });
  const fail = (e: unknown) => log?.(`realtime error: ${String(e)}`);

  async function claimsFor(client: Client, token: unknown): Promise<Claims | string> {
    if (typeof token !== 'string' || !token) return client.apiClaims;
    const v = await keys.verify(token);
    if (!v.ok)
      return v.reason === 'expired'
        ? 'InvalidJWTToken: Token has expired'
        : 'JwtSignatureError: Failed to validate JWT signature';
    return v.claims;
  }

  function leave(client: Client, channel: Channel, reason?: string): void {
    presence.untrack(client, channel);
    if (reason) hub.close(client, channel, reason);
    else client.channels.delete(channel.topic);
  }

  /** A client past a limit: told in reply to what it sent, on each of its channels and each join still being
   * checked, then disconnected. */
  function offend(client: Client, reason: string, f?: Frame): void {
    if (f?.ref) hub.reply(client, f, 'error', { reason });
    for (const pending of client.joining.values()) hub.reply(client, pending, 'error', { reason });
    for (const channel of [...client.channels.values()]) leave(client, channel, reason);
    client.socket.close(1008, reason.slice(0, 120));
  }

  async function join(client: Client, f: Frame): Promise<void> {
    if (!client.joins.take()) return offend(client, 'ClientJoinRateLimitReached: Too many joins per second', f);
    const held = new Set([...client.channels.keys(), ...client.joining.keys()]);
    if (!held.has(f.topic) && held.size >= limits.channelsPerClient)
      return offend(client, 'ChannelRateLimitReached: Too many channels', f);
    client.joining.set(f.topic, f);
    try {
      await checkAndJoin(client, f);
    } finally {
      client.joining.delete(f.topic);
    }
  }

  async function checkAndJoin(client: Client, f: Frame): Promise<void> {
    const claims = await claimsFor(client, f.payload.access_token);
    if (typeof claims === 'string') return hub.reply(client, f, 'error', { reason: claims });
    const config = (f.payload.config ?? {}) as JoinConfig;
    const bindings: Binding[] = [];
    for (const b of config.postgres_changes ?? []) {
      if (parseFilter(b.filter) === 'unsupported') {
        return hub.reply(client, f, 'error', {
          reason: `RealtimeSubscriptionError: unsupported filter "${b.filter}" (only col=eq.value)`,
        });
      }
      bindings.push({ id: nextBindingId++, event: b.event, schema: b.schema, table: b.table, filter: b.filter });
    }
    const isPrivate = !!config.private;
    if (isPrivate && !(await mayUseTopic(db, claims, subTopic(f.topic), 'read'))) {
      return hub.reply(client, f, 'error', {
        reason: `Unauthorized: You do not have permissions to read from this Channel topic: ${subTopic(f.topic)}`,
      });
    }
    const key = presenceKey(config.presence?.key, claims.sub);
    if (typeof key !== 'string') return hub.reply(client, f, 'error', { reason: key.refused });
    if (!hub.clients.has(client)) return; // disconnected while the join was checked
    const before = client.channels.get(f.topic);
    if (before) leave(client, before);
    if (bindings.length) changes.wake();
    const channel: Channel = {
      topic: f.topic,
      room: roomKey(f.topic, isPrivate),
      private: isPrivate,
      joinRef: f.joinRef,
      claims,
      bindings,
      self: !!config.broadcast?.self,
      presenceKey: key,
    };
    client.channels.set(f.topic, channel);
    hub.reply(client, f, 'ok', {
      postgres_changes: bindings.map((b) => ({
        id: b.id,
        event: b.event,
        schema: b.schema,
        table: b.table,
        filter: b.filter,
      })),
    });
    const system = {
      extension: 'postgres_changes',
      status: 'ok',
      message: 'Subscribed to PostgreSQL',
      channel: subTopic(f.topic),
    };
    hub.send(client, { joinRef: f.joinRef, ref: null, topic: f.topic, event: 'system', payload: system });
    const state = await presence.state(channel.room);
    hub.send(client, { joinRef: f.joinRef, ref: null, topic: f.topic, event: 'presence_state', payload: state });
  }

  async function onFrame(client: Client, f: Frame): Promise<void> {
    if (f.topic === 'phoenix' && f.event === 'heartbeat') return hub.reply(client, f, 'ok', {});
    const channel = client.channels.get(f.topic);
    switch (f.event) {
      case 'phx_join':
        return join(client, f);
      case 'access_token': {
        const claims = await claimsFor(client, f.payload.access_token);
        if (channel && typeof claims !== 'string') channel.claims = claims;
        return;
      }
      case 'presence': {
        const p = f.payload as { event?: string; payload?: Record<string, unknown> };
        if (!channel) return hub.reply(client, f, 'error', { reason: 'You are not a member of this channel.' });
        if (p.event === 'track') {
          if (JSON.stringify(p.payload ?? {}).length > limits.maxPresenceBytes)
            return hub.reply(client, f, 'error', {
              reason: `A presence payload has at most ${limits.maxPresenceBytes} bytes.`,
            });
          presence.track(client, channel, p.payload ?? {});
        } else if (p.event === 'untrack') presence.untrack(client, channel);
        return hub.reply(client, f, 'ok', {});
      }
      case 'phx_leave':
        if (channel) leave(client, channel);
        hub.reply(client, f, 'ok', {});
        return hub.send(client, { joinRef: f.joinRef, ref: null, topic: f.topic, event: 'phx_close', payload: {} });
      case 'broadcast': {
        const p = f.payload as { event?: unknown; payload?: unknown };
        return broadcast.fromSocket(client, f, {
          topic: f.topic,
          event: String(p.event ?? ''),
          payload: p.payload,
          binary: false,
        });
      }
      default:
        return hub.reply(client, f, 'ok', {});
    }
  }

  function onMessage(client: Client, data: Buffer, isBinary: boolean): void {
    if (!client.messages.take()) return offend(client, 'ClientRateLimited: Too many messages per second');
    if (!addresses.spend(client.address, data.length))
      return offend(client, 'ClientRateLimited: Too many bytes per second from this address');
    if (isBinary) {
      // vsn 2.0.0 broadcast pushes are binary (kind 3).
      const push = decodeBroadcastPush(data);
      if (push) void broadcast.fromSocket(client, push.frame, push.broadcast).catch(fail);
      return;
    }
    const frame = decode(data.toString());
    if (frame) void onFrame(client, frame).catch(fail);
  }

  function connect(ws: WebSocket, url: URL, address: string, apiClaims: Claims): void {
    const client: Client = {
      socket: ws,
      vsn: url.searchParams.get('vsn') ?? '1.0.0',
      address,
      apiClaims,
      channels: new Map(),
      joining: new Map(),
      messages: new Bucket(limits.messagesPerSecond),
      joins: new Bucket(limits.joinsPerSecond),
    };
    hub.clients.add(client);
    ws.on('message', (data, isBinary) =>
      onMessage(client, Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer), isBinary),
    );
    let gone = false;
    const disconnect = () => {
      if (gone) return;
      gone = true;
      hub.clients.delete(client);
      addresses.release(address);
      for (const channel of [...client.channels.values()]) leave(client, channel);
    };
    ws.on('close', disconnect);
    ws.on('error', disconnect);
  }

  // A frame over the limit closes the socket with 1009, before it is read whole.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });

  function attach(server: http.Server): void {
    server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== '/realtime/v1/websocket') return socket.destroy();
      const address = req.socket.remoteAddress ?? '';
      const apikey = (req.headers['x-api-key'] as string | undefined) ?? url.searchParams.get('apikey') ?? '';
      void keys.verify(apikey).then((v) => {
        if (!v.ok) {
          socket.write(
            'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{"message":"Invalid API key"}',
          );
          return socket.destroy();
        }
        if (!addresses.admit(address)) {
          socket.write(
            'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\r\n{"message":"Too many connections from this address"}',
          );
          return socket.destroy();
        }
        wss.handleUpgrade(req, socket, head, (ws) => connect(ws, url, address, v.claims));
      });
    });
  }

  // A session ended (signed out, suspended, ended by an admin): its channels end with it, as REST
  // refuses its token from the next request on.
  const unlistenSessions = await db.listen('repx_session_ended', (sessionId) => {
    for (const client of hub.clients) {
      for (const channel of [...client.channels.values()]) {
        if (channel.claims.session_id === sessionId) leave(client, channel, 'InvalidJWTToken: The session has ended');
      }
    }
  });

  return {
    attach,
    /** The REST broadcast endpoint (/realtime/v1/api/broadcast), for app.ts to mount. */
    http: broadcast.fromHttp,
    close: async () => {
      await changes.close();
      broadcast.close();
      await presence.close();
      await unlistenSessions();
      for (const c of hub.clients) c.socket.terminate();
      wss.close();
    },
  };
}
