import { mayUseTopic } from './authorize';
import { roomKey, subTopic, type Channel, type Client } from './hub';
import { presenceKey } from './presence';
import { parseFilter, type Binding, type Frame } from './protocol';
import type { Realtime } from './context';
import { claimsFor, leave, offend } from './membership';

let nextBindingId = 1;

interface JoinConfig {
  postgres_changes?: { event: string; schema: string; table?: string; filter?: string }[];
  broadcast?: { self?: boolean };
  presence?: { key?: string };
  private?: boolean;
}

/** phx_join: within the join and channel limits, checked, then answered with the bindings and presence. */
export async function join(rt: Realtime, client: Client, f: Frame): Promise<void> {
  if (!client.joins.take()) return offend(rt, client, 'ClientJoinRateLimitReached: Too many joins per second', f);
  const held = new Set([...client.channels.keys(), ...client.joining.keys()]);
  if (!held.has(f.topic) && held.size >= rt.limits.channelsPerClient)
    return offend(rt, client, 'ChannelRateLimitReached: Too many channels', f);
  client.joining.set(f.topic, f);
  try {
    await checkAndJoin(rt, client, f);
  } finally {
    client.joining.delete(f.topic);
  }
}

/** The channel a join asks for, or the reason it is refused. */
async function check(rt: Realtime, client: Client, f: Frame): Promise<Channel | string> {
  const claims = await claimsFor(rt, client, f.payload.access_token);
  if (typeof claims === 'string') return claims;
  const config = (f.payload.config ?? {}) as JoinConfig;
  const bindings: Binding[] = [];
  for (const b of config.postgres_changes ?? []) {
    if (parseFilter(b.filter) === 'unsupported')
      return `RealtimeSubscriptionError: unsupported filter "${b.filter}" (only col=eq.value)`;
    bindings.push({ id: nextBindingId++, event: b.event, schema: b.schema, table: b.table, filter: b.filter });
  }
  const isPrivate = !!config.private;
  if (isPrivate && !(await mayUseTopic(rt.db, claims, subTopic(f.topic), 'read')))
    return `Unauthorized: You do not have permissions to read from this Channel topic: ${subTopic(f.topic)}`;
  const key = presenceKey(config.presence?.key, claims.sub);
  if (typeof key !== 'string') return key.refused;
  return {
    topic: f.topic,
    room: roomKey(f.topic, isPrivate),
    private: isPrivate,
    joinRef: f.joinRef,
    claims,
    bindings,
    self: !!config.broadcast?.self,
    presenceKey: key,
  };
}

async function checkAndJoin(rt: Realtime, client: Client, f: Frame): Promise<void> {
  const channel = await check(rt, client, f);
  if (typeof channel === 'string') return rt.hub.reply(client, f, 'error', { reason: channel });
  if (!rt.hub.clients.has(client)) return; // disconnected while the join was checked
  const before = client.channels.get(f.topic);
  if (before) leave(rt, client, before);
  rt.hub.add(client, channel);
  rt.messages.wake();
  rt.hub.reply(client, f, 'ok', {
    postgres_changes: channel.bindings.map(({ id, event, schema, table, filter }) => ({
      id,
      event,
      schema,
      table,
      filter,
    })),
  });
  const system = {
    extension: 'postgres_changes',
    status: 'ok',
    message: 'Subscribed to PostgreSQL',
    channel: subTopic(f.topic),
  };
  rt.hub.send(client, { joinRef: f.joinRef, ref: null, topic: f.topic, event: 'system', payload: system });
  const state = await rt.presence.state(channel.room);
  rt.hub.send(client, { joinRef: f.joinRef, ref: null, topic: f.topic, event: 'presence_state', payload: state });
}
