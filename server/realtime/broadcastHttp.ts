import type http from 'node:http';
import type { Database } from '../db/database';
import type { Claims } from '../auth/jwt';
import { HttpError, readBytes, readJson, sendEmpty } from '../http/io';
import { mayUseTopic } from './authorize';
import { roomKey, type Client, type RoomKey } from './hub';
import { Bucket, type RealtimeLimits } from './limits';
import type { Broadcast } from './protocol';

/** Messages one request to the REST endpoint may carry. */
const MAX_HTTP_MESSAGES = 100;

/**
 * POST /realtime/v1/api/broadcast[/<topic>/events/<event>]: channel.httpSend, or send() before
 * joining. A signed-in caller's messages, within its address's budget, each allowed to write to
 * its topic, are published as a socket's are.
 */
export function broadcastOverHttp(deps: {
  db: Database;
  limits: RealtimeLimits;
  publish: (room: RoomKey, b: Broadcast, sender: Client | null) => void;
}) {
  const { db, limits, publish } = deps;
  const httpBudgets = new Map<string, Bucket>();
  return async function fromHttp(
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
