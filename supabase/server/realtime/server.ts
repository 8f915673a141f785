import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Database } from '../db/database';
import type { JwtKeys, Claims } from '../auth/jwt';
import { callerStatement, type CallContext } from '../db/caller';
import { quoteIdent } from '../db/quote';
import { mayUseTopic } from './authorize';
import { followById } from './follow';
import {
  decode,
  decodeBroadcastPush,
  encode,
  encodeBroadcast,
  parseFilter,
  type Binding,
  type Broadcast,
  type Frame,
} from './protocol';

/** What a table change notification (private.notify_realtime) carries. */
interface Change {
  schema: string;
  table: string;
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  commit_timestamp: string;
  record: Record<string, unknown>;
}

interface Channel {
  topic: string;
  joinRef: string | null;
  claims: Claims;
  bindings: Binding[];
  /** Whether the member's own broadcasts come back to it (config.broadcast.self). */
  self: boolean;
  /** The presence key this member tracks under (config.presence.key, or one of its own). */
  presenceKey: string;
  /** A private channel: each broadcast is authorized by the policies on realtime.messages. */
  private: boolean;
}

interface Client {
  socket: WebSocket;
  vsn: string;
  apiClaims: Claims;
  channels: Map<string, Channel>;
}

let nextBindingId = 1;

/** What SQL sees of a subscriber's re-read: no HTTP request behind it. */
const SUBSCRIBER: CallContext = { method: 'GET', path: '/realtime/v1', headers: {}, cookies: {} };

/**
 * The part of Supabase Realtime that supabase-js channels use for postgres_changes: joins with
 * their bindings, heartbeats, token updates, leaves. Changes come from NOTIFY 'repx_realtime'
 * (tables that change now and then) and from following public.market_events by id (the tape);
 * each is delivered to a subscriber only if that subscriber may read the row (checked as the
 * subscriber's role, so row-level security decides, as Realtime does).
 */
export async function attachRealtime(server: http.Server, db: Database, keys: JwtKeys, log?: (l: string) => void) {
  const wss = new WebSocketServer({ noServer: true });
  /** This server among others over the same database (its own broadcasts do not come back to it). */
  const PROCESS_ID = randomUUID();
  const clients = new Set<Client>();
  /** Presence: per topic, what each member tracks (one meta per member). */
  const presence = new Map<string, Map<Client, { key: string; meta: Record<string, unknown> }>>();

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/realtime/v1/websocket') return socket.destroy();
    const apikey = (req.headers['x-api-key'] as string | undefined) ?? url.searchParams.get('apikey') ?? '';
    void keys.verify(apikey).then((v) => {
      if (!v.ok) {
        socket.write(
          'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{"message":"Invalid API key"}',
        );
        return socket.destroy();
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const client: Client = {
          socket: ws,
          vsn: url.searchParams.get('vsn') ?? '1.0.0',
          apiClaims: v.claims,
          channels: new Map(),
        };
        clients.add(client);
        ws.on('message', (data, isBinary) => {
          if (isBinary) {
            // vsn 2.0.0 broadcast pushes are binary (kind 3).
            const push = decodeBroadcastPush(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer));
            if (push)
              void onBroadcast(client, push.frame, push.broadcast).catch((e: unknown) =>
                log?.(`realtime error: ${String(e)}`),
              );
            return;
          }
          const frame = decode(data.toString());
          if (frame) void onFrame(client, frame).catch((e: unknown) => log?.(`realtime error: ${String(e)}`));
        });
        const gone = () => {
          clients.delete(client);
          for (const topic of client.channels.keys()) untrack(client, topic);
        };
        ws.on('close', gone);
        ws.on('error', gone);
      });
    });
  });

  const send = (c: Client, f: Frame) => {
    if (c.socket.readyState === c.socket.OPEN) c.socket.send(encode(c.vsn, f));
  };
  const reply = (c: Client, f: Frame, status: 'ok' | 'error', response: Record<string, unknown>) =>
    send(c, { joinRef: f.joinRef, ref: f.ref, topic: f.topic, event: 'phx_reply', payload: { status, response } });

  async function claimsFor(client: Client, token: unknown): Promise<Claims | string> {
    if (typeof token !== 'string' || !token) return client.apiClaims;
    const v = await keys.verify(token);
    if (!v.ok)
      return v.reason === 'expired'
        ? 'InvalidJWTToken: Token has expired'
        : 'JwtSignatureError: Failed to validate JWT signature';
    return v.claims;
  }

  async function onFrame(client: Client, f: Frame) {
    if (f.topic === 'phoenix' && f.event === 'heartbeat') return reply(client, f, 'ok', {});
    switch (f.event) {
      case 'phx_join': {
        const claims = await claimsFor(client, f.payload.access_token);
        if (typeof claims === 'string') return reply(client, f, 'error', { reason: claims });
        const config = (f.payload.config ?? {}) as {
          postgres_changes?: { event: string; schema: string; table?: string; filter?: string }[];
        };
        const bindings: Binding[] = [];
        for (const b of config.postgres_changes ?? []) {
          if (parseFilter(b.filter) === 'unsupported') {
            return reply(client, f, 'error', {
              reason: `RealtimeSubscriptionError: unsupported filter "${b.filter}" (only col=eq.value)`,
            });
          }
          bindings.push({ id: nextBindingId++, event: b.event, schema: b.schema, table: b.table, filter: b.filter });
        }
        const joinConfig = (f.payload.config ?? {}) as {
          broadcast?: { self?: boolean };
          presence?: { key?: string };
          private?: boolean;
        };
        const subTopic = f.topic.replace(/^realtime:/, '');
        if (joinConfig.private && !(await mayUseTopic(db, claims, subTopic, 'read'))) {
          return reply(client, f, 'error', {
            reason: `Unauthorized: You do not have permissions to read from this Channel topic: ${subTopic}`,
          });
        }
        if (bindings.length) marketEvents.wake();
        client.channels.set(f.topic, {
          private: !!joinConfig.private,
          topic: f.topic,
          joinRef: f.joinRef,
          claims,
          bindings,
          self: !!joinConfig.broadcast?.self,
          presenceKey: joinConfig.presence?.key || randomUUID(),
        });
        reply(client, f, 'ok', {
          postgres_changes: bindings.map((b) => ({
            id: b.id,
            event: b.event,
            schema: b.schema,
            table: b.table,
            filter: b.filter,
          })),
        });
        send(client, {
          joinRef: f.joinRef,
          ref: null,
          topic: f.topic,
          event: 'system',
          payload: {
            extension: 'postgres_changes',
            status: 'ok',
            message: 'Subscribed to PostgreSQL',
            channel: f.topic.replace(/^realtime:/, ''),
          },
        });
        send(client, {
          joinRef: f.joinRef,
          ref: null,
          topic: f.topic,
          event: 'presence_state',
          payload: await presenceState(f.topic),
        });
        return;
      }
      case 'access_token': {
        const channel = client.channels.get(f.topic);
        const claims = await claimsFor(client, f.payload.access_token);
        if (channel && typeof claims !== 'string') channel.claims = claims;
        return;
      }
      case 'presence': {
        const p = f.payload as { event?: string; payload?: Record<string, unknown> };
        if (!client.channels.has(f.topic))
          return reply(client, f, 'error', { reason: 'You are not a member of this channel.' });
        if (p.event === 'track') track(client, f.topic, p.payload ?? {});
        else if (p.event === 'untrack') untrack(client, f.topic);
        return reply(client, f, 'ok', {});
      }
      case 'phx_leave':
        untrack(client, f.topic);
        client.channels.delete(f.topic);
        reply(client, f, 'ok', {});
        return send(client, { joinRef: f.joinRef, ref: null, topic: f.topic, event: 'phx_close', payload: {} });
      case 'broadcast': {
        const p = f.payload as { event?: unknown; payload?: unknown };
        return onBroadcast(client, f, {
          topic: f.topic,
          event: String(p.event ?? ''),
          payload: p.payload,
          binary: false,
        });
      }
      default:
        return reply(client, f, 'ok', {});
    }
  }

  type Metas = Record<string, { metas: Record<string, unknown>[] }>;
  /** Presence is shared through the database when other server processes may serve the same topics. */
  const sharedPresence = db.kind === 'postgres';

  /** The topic's presence as Phoenix gives it: key -> { metas }, every process's members included. */
  async function presenceState(topic: string): Promise<Metas> {
    const state: Metas = {};
    const refs = new Set<unknown>();
    const add = (key: string, meta: Record<string, unknown>) => {
      if (refs.has(meta.phx_ref)) return;
      refs.add(meta.phx_ref);
      (state[key] ??= { metas: [] }).metas.push(meta);
    };
    for (const { key, meta } of presence.get(topic)?.values() ?? []) add(key, meta);
    if (sharedPresence) {
      const rows = await db.query<{ key: string; meta: Record<string, unknown> }>(
        `select key, meta from local_server.presence where topic = $1 and seen_at > now() - interval '1 minute'`,
        [topic],
      );
      for (const r of rows) add(r.key, r.meta);
    }
    return state;
  }

  function presenceDiff(topic: string, joins: Metas, leaves: Metas) {
    for (const c of clients) {
      const channel = c.channels.get(topic);
      if (channel)
        send(c, { joinRef: channel.joinRef, ref: null, topic, event: 'presence_diff', payload: { joins, leaves } });
    }
  }

  /** Tells the other server processes: the member's row, and the diff their members receive. */
  function sharePresenceDiff(topic: string, joins: Metas, leaves: Metas) {
    if (!sharedPresence) return;
    const fail = (e: unknown) => log?.(`realtime error: sharing presence: ${String(e)}`);
    const left = Object.values(leaves).flatMap((m) => m.metas.map((meta) => String(meta.phx_ref)));
    void (async () => {
      if (left.length)
        await db.query('delete from local_server.presence where topic = $1 and ref = any($2)', [topic, left]);
      for (const [key, { metas }] of Object.entries(joins)) {
        for (const meta of metas) {
          await db.query(
            'insert into local_server.presence (topic, ref, origin, key, meta) values ($1, $2, $3, $4, $5)',
            [topic, String(meta.phx_ref), PROCESS_ID, key, JSON.stringify(meta)],
          );
        }
      }
      await db.query(
        `insert into local_server.broadcasts (origin, kind, topic, event, payload) values ($1, 'presence', $2, 'presence_diff', $3)`,
        [PROCESS_ID, topic, JSON.stringify({ joins, leaves })],
      );
    })().catch(fail);
  }

  function track(client: Client, topic: string, payload: Record<string, unknown>) {
    const members = presence.get(topic) ?? new Map();
    presence.set(topic, members);
    const key = client.channels.get(topic)!.presenceKey;
    const before = members.get(client);
    const meta = { ...payload, phx_ref: randomUUID() };
    members.set(client, { key, meta });
    const joins = { [key]: { metas: [meta] } };
    const leaves = before ? { [before.key]: { metas: [before.meta] } } : {};
    presenceDiff(topic, joins, leaves);
    sharePresenceDiff(topic, joins, leaves);
  }

  function untrack(client: Client, topic: string) {
    const before = presence.get(topic)?.get(client);
    if (!before) return;
    presence.get(topic)!.delete(client);
    if (!presence.get(topic)!.size) presence.delete(topic);
    const leaves = { [before.key]: { metas: [before.meta] } };
    presenceDiff(topic, {}, leaves);
    sharePresenceDiff(topic, {}, leaves);
  }

  /** Relays a broadcast to the topic's members (the sender too if it joined with self), and acks it. */
  async function onBroadcast(sender: Client, f: Frame, b: Broadcast) {
    const channel = sender.channels.get(b.topic);
    if (!channel) {
      if (f.ref) reply(sender, f, 'error', { reason: 'You are not a member of this channel.' });
      return;
    }
    const subTopic = b.topic.replace(/^realtime:/, '');
    if (channel.private && !(await mayUseTopic(db, channel.claims, subTopic, 'write'))) {
      if (f.ref)
        reply(sender, f, 'error', {
          reason: `Unauthorized: You do not have permissions to write to this Channel topic: ${subTopic}`,
        });
      return;
    }
    publish(b, sender);
    if (f.ref) reply(sender, f, 'ok', {});
  }

  /**
   * Relays a broadcast to this process's members and, over PostgreSQL, to the other server
   * processes (local_server.broadcasts, followed by id below).
   */
  function publish(b: Broadcast, sender: Client | null) {
    relay(b, sender);
    if (db.kind !== 'postgres') return;
    void db
      .query(
        'insert into local_server.broadcasts (origin, topic, event, payload, bytes, meta) values ($1, $2, $3, $4, $5, $6)',
        [
          PROCESS_ID,
          b.topic,
          b.event,
          b.binary ? null : JSON.stringify(b.payload ?? null),
          b.binary ? (b.payload as Buffer) : null,
          b.meta ? JSON.stringify(b.meta) : null,
        ],
      )
      .catch((e: unknown) => log?.(`realtime error: sharing a broadcast: ${String(e)}`));
  }

  function relay(b: Broadcast, sender: Client | null) {
    for (const c of clients) {
      const channel = c.channels.get(b.topic);
      if (!channel || (c === sender && !channel.self) || c.socket.readyState !== c.socket.OPEN) continue;
      if (c.vsn.startsWith('1')) {
        send(c, {
          joinRef: null,
          ref: null,
          topic: b.topic,
          event: 'broadcast',
          payload: { type: 'broadcast', event: b.event, payload: b.payload },
        });
      } else {
        c.socket.send(encodeBroadcast(b), { binary: true });
      }
    }
  }

  /** Whether the subscriber may read the changed row: the row is re-read as them (a subscriber whose session has ended reads nothing). */
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

  async function onChange(change: Change) {
    const columns = Object.keys(change.record).map((name) => ({ name, type: 'text' }));
    for (const client of clients) {
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
        send(client, {
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

  const deliver = (change: Change) =>
    void onChange(change).catch((e: unknown) => log?.(`realtime error: ${String(e)}`));
  // Tables that change now and then notify (private.notify_realtime); the market's tape is followed by id.
  const unlisten = await db.listen('repx_realtime', (p) => deliver(JSON.parse(p) as Change));
  const marketEvents = followById(
    db,
    'public',
    'market_events',
    ({ record, commit_timestamp }) =>
      deliver({ schema: 'public', table: 'market_events', type: 'INSERT', commit_timestamp, record }),
    {
      log,
      wanted: () =>
        [...clients].some((c) =>
          [...c.channels.values()].some((ch) =>
            ch.bindings.some((b) => b.schema === 'public' && (!b.table || b.table === 'market_events')),
          ),
        ),
    },
  );
  // Broadcasts made through the other server processes (PostgreSQL only: PGlite is one process).
  const shared =
    db.kind !== 'postgres'
      ? null
      : followById(
          db,
          'local_server',
          'broadcasts',
          ({ record: r }) => {
            if (r.origin === PROCESS_ID) return;
            if (r.kind === 'presence') {
              const diff = r.payload as { joins: Metas; leaves: Metas };
              return presenceDiff(String(r.topic), diff.joins, diff.leaves);
            }
            const bytes = typeof r.bytes === 'string' ? Buffer.from(r.bytes.replace(/^\\x/, ''), 'hex') : null;
            relay(
              {
                topic: String(r.topic),
                event: String(r.event),
                payload: bytes ?? r.payload,
                binary: bytes !== null,
                ...(r.meta ? { meta: r.meta as Record<string, unknown> } : {}),
              },
              null,
            );
          },
          { log, wanted: () => clients.size > 0 },
        );
  // This process's members stay present for the others while it lives.
  const presenceHeartbeat = setInterval(() => {
    if (sharedPresence && presence.size) {
      void db
        .query('update local_server.presence set seen_at = now() where origin = $1', [PROCESS_ID])
        .catch((e: unknown) => log?.(`realtime error: presence heartbeat: ${String(e)}`));
    }
  }, 20_000);
  presenceHeartbeat.unref();
  return {
    /** A broadcast from the REST endpoint (channel.httpSend): no sender among the members. */
    broadcast: (topic: string, event: string, payload: unknown) =>
      publish({ topic, event, payload, binary: false }, null),
    close: async () => {
      marketEvents.stop();
      shared?.stop();
      clearInterval(presenceHeartbeat);
      if (sharedPresence)
        await db.query('delete from local_server.presence where origin = $1', [PROCESS_ID]).catch(() => undefined);
      await unlisten();
      for (const c of clients) c.socket.terminate();
      wss.close();
    },
  };
}
