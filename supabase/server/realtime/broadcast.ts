import type http from 'node:http';
import type { Database } from '../db/database';
import type { Claims } from '../auth/jwt';
import { HttpError, readBytes, readJson, sendEmpty } from '../http/io';
import { mayUseTopic } from './authorize';
import { followById } from './follow';
import { encodeBroadcast, type Broadcast, type Frame } from './protocol';
import { roomKey, subTopic, type Client, type Hub, type RoomKey } from './hub';
import { Bucket, type RealtimeLimits } from './limits';
import type { Metas } from './presence';

/** Messages one request to the REST endpoint may carry. */
const MAX_HTTP_MESSAGES = 100;

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

  function relay(room: RoomKey, b: Broadcast, sender: Client | null): void {
    for (const [client, channel] of hub.members(room)) {
      if ((client === sender && !channel.self) || client.socket.readyState !== client.socket.OPEN) continue;
      if (client.vsn.startsWith('1')) {
        hub.send(client, {
          joinRef: null,
          ref: null,
          topic: channel.topic,
          event: 'broadcast',
          payload: { type: 'broadcast', event: b.event, payload: b.payload },
        });
      } else {
        client.socket.send(encodeBroadcast({ ...b, topic: channel.topic }), { binary: true });
      }
    }
  }

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

  const httpBudgets = new Map<string, Bucket>();

  /** POST /realtime/v1/api/broadcast[/<topic>/events/<event>]: channel.httpSend, or send() before joining. */
  async function fromHttp(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    who: { role: string; claims: Record<string, unknown> },
  ): Promise<void> {
    if (req.method !== 'POST') throw new HttpError(405, { message: 'Use POST.' });
    // httpSend sends an ArrayBuffer or a typed array as raw bytes: one binary message, as a socket's.
    const binary = req.headers['content-type']?.startsWith('application/octet-stream') ?? false;
    const tooLarge = () =>
      new HttpError(413, { message: `A broadcast's payload has at most ${limits.maxMessageBytes} bytes.` });
    const body = binary
      ? await readBytes(req, limits.maxMessageBytes).catch(() => Promise.reject(tooLarge()))
      : await readJson(req);
    const messages = parseMessages(url, body);
    if (binary && messages.length !== 1)
      throw new HttpError(400, { message: 'Binary broadcasts go to /api/broadcast/<topic>/events/<event>.' });
    if (who.role === 'anon') throw new HttpError(401, { message: 'Sign in to broadcast.' });
    const address = req.socket.remoteAddress ?? '';
    const budget = httpBudgets.get(address) ?? new Bucket(limits.messagesPerSecond);
    httpBudgets.set(address, budget);
    if (!budget.take(messages.length))
      throw new HttpError(429, { message: 'Too many broadcasts: slow down.' }, { 'Retry-After': '1' });
    for (const m of messages) {
      if (!binary && JSON.stringify(m.payload ?? null).length > limits.maxMessageBytes) throw tooLarge();
      if (m.private && !(await mayUseTopic(db, who.claims as Claims, m.topic, 'write'))) {
        throw new HttpError(403, {
          message: `Unauthorized: You do not have permissions to write to this Channel topic: ${m.topic}`,
        });
      }
    }
    for (const m of messages) {
      publish(roomKey(m.topic, !!m.private), { topic: m.topic, event: m.event, payload: m.payload, binary }, null);
    }
    sendEmpty(res, 202);
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
    fromHttp,
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

interface HttpMessage {
  topic: string;
  event: string;
  payload: unknown;
  private?: boolean;
}

function parseMessages(url: URL, body: unknown): HttpMessage[] {
  const one = /^\/realtime\/v1\/api\/broadcast\/([^/]+)\/events\/([^/]+)$/.exec(url.pathname);
  let messages: HttpMessage[];
  if (one) {
    messages = [
      {
        topic: decodeURIComponent(one[1]!),
        event: decodeURIComponent(one[2]!),
        payload: body,
        private: url.searchParams.get('private') === 'true',
      },
    ];
  } else if (
    url.pathname === '/realtime/v1/api/broadcast' &&
    Array.isArray((body as { messages?: unknown })?.messages)
  ) {
    messages = (body as { messages: HttpMessage[] }).messages;
  } else {
    throw new HttpError(400, { message: 'Expected /api/broadcast/<topic>/events/<event> or a body of messages.' });
  }
  if (messages.length > MAX_HTTP_MESSAGES)
    throw new HttpError(400, { message: `Send at most ${MAX_HTTP_MESSAGES} messages at once.` });
  for (const m of messages) {
    if (!m || typeof m.topic !== 'string' || !m.topic || typeof m.event !== 'string')
      throw new HttpError(400, { message: 'Each message needs a topic and an event.' });
  }
  return messages;
}
