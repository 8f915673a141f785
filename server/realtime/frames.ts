import { subTopic, type Client } from './hub';
import { mayUseTopic } from './authorize';
import { decode, decodeBroadcastPush, type Frame } from './protocol';
import type { Realtime } from './context';
import { join } from './join';
import { claimsFor, leave, offend } from './membership';

/** A message from a socket: counted against the client's and its address's limits, then handled. */
export function onMessage(rt: Realtime, client: Client, data: Buffer, isBinary: boolean): void {
  if (!client.messages.take()) return offend(rt, client, 'ClientRateLimited: Too many messages per second');
  if (!rt.addresses.spend(client.address, data.length))
    return offend(rt, client, 'ClientRateLimited: Too many bytes per second from this address');
  if (isBinary) {
    // vsn 2.0.0 broadcast pushes are binary (kind 3).
    const push = decodeBroadcastPush(data);
    if (push) void rt.broadcast.fromSocket(client, push.frame, push.broadcast).catch(rt.fail);
    return;
  }
  const frame = decode(data.toString());
  if (frame) void onFrame(rt, client, frame).catch(rt.fail);
}

async function onFrame(rt: Realtime, client: Client, f: Frame): Promise<void> {
  const { hub } = rt;
  if (f.topic === 'phoenix' && f.event === 'heartbeat') return hub.reply(client, f, 'ok', {});
  const channel = client.channels.get(f.topic);
  switch (f.event) {
    case 'phx_join':
      return join(rt, client, f);
    case 'access_token': {
      const claims = await claimsFor(rt, client, f.payload.access_token);
      if (channel && typeof claims !== 'string') channel.claims = claims;
      return;
    }
    case 'presence':
      return onPresence(rt, client, f);
    case 'phx_leave':
      if (channel) leave(rt, client, channel);
      hub.reply(client, f, 'ok', {});
      return hub.send(client, { joinRef: f.joinRef, ref: null, topic: f.topic, event: 'phx_close', payload: {} });
    case 'broadcast': {
      const p = f.payload as { event?: unknown; payload?: unknown };
      const b = { topic: f.topic, event: String(p.event ?? ''), payload: p.payload, binary: false };
      return rt.broadcast.fromSocket(client, f, b);
    }
    default:
      return hub.reply(client, f, 'ok', {});
  }
}

async function onPresence(rt: Realtime, client: Client, f: Frame): Promise<void> {
  const channel = client.channels.get(f.topic);
  const p = f.payload as { event?: string; payload?: Record<string, unknown> };
  if (!channel) return rt.hub.reply(client, f, 'error', { reason: 'You are not a member of this channel.' });
  if (p.event === 'track') {
    const max = rt.limits.maxPresenceBytes;
    if (JSON.stringify(p.payload ?? {}).length > max)
      return rt.hub.reply(client, f, 'error', { reason: `A presence payload has at most ${max} bytes.` });
    // On a private channel, the policies on realtime.messages say who may be seen there.
    if (channel.private && !(await mayUseTopic(rt.db, channel.claims, subTopic(f.topic), 'write', 'presence')))
      return rt.hub.reply(client, f, 'error', {
        reason: `Unauthorized: You do not have permissions to track presence on this Channel topic: ${subTopic(f.topic)}`,
      });
    if (client.channels.get(f.topic) !== channel) return; // left while the track was checked
    rt.presence.track(client, channel, p.payload ?? {});
  } else if (p.event === 'untrack') rt.presence.untrack(client, channel);
  rt.hub.reply(client, f, 'ok', {});
}
