import type { WebSocket } from 'ws';
import type { Claims } from '../auth/jwt';
import { encode, type Binding, type Frame } from './protocol';
import type { Bucket } from './limits';

/**
 * A channel's room: its topic and whether it is private. Supabase keeps a private topic and the
 * public topic of the same name apart, so a member of one never hears the other.
 */
export type RoomKey = string;

export function roomKey(topic: string, isPrivate: boolean): RoomKey {
  return `${isPrivate ? 'private' : 'public'}:${topic.replace(/^realtime:/, '')}`;
}

/** The topic as policies on realtime.messages see it: without the `realtime:` prefix. */
export const subTopic = (topic: string) => topic.replace(/^realtime:/, '');

export interface Channel {
  /** The topic as the client joined it ('realtime:room-1'): what frames to it carry. */
  topic: string;
  room: RoomKey;
  joinRef: string | null;
  claims: Claims;
  bindings: Binding[];
  /** Whether the member's own broadcasts come back to it (config.broadcast.self). */
  self: boolean;
  /** The presence key this member tracks under. */
  presenceKey: string;
  /** A private channel: joins and broadcasts are authorized by the policies on realtime.messages. */
  private: boolean;
}

export interface Client {
  socket: WebSocket;
  vsn: string;
  address: string;
  apiClaims: Claims;
  /** By topic as joined. */
  channels: Map<string, Channel>;
  /** Joins being checked, by topic: they count toward the channels a client may hold. */
  joining: Map<string, Frame>;
  messages: Bucket;
  joins: Bucket;
}

/** The process's sockets and their channels, and how to answer them. */
export class Hub {
  readonly clients = new Set<Client>();

  send(c: Client, f: Frame): void {
    if (c.socket.readyState === c.socket.OPEN) c.socket.send(encode(c.vsn, f));
  }

  reply(c: Client, f: Frame, status: 'ok' | 'error', response: Record<string, unknown>): void {
    this.send(c, { joinRef: f.joinRef, ref: f.ref, topic: f.topic, event: 'phx_reply', payload: { status, response } });
  }

  /** Every member of a room in this process, with the channel it joined by. */
  *members(room: RoomKey): Generator<[Client, Channel]> {
    for (const client of this.clients) {
      for (const channel of client.channels.values()) if (channel.room === room) yield [client, channel];
    }
  }

  /** Ends a member's channel as the server ends one: phx_close, after saying why. */
  close(client: Client, channel: Channel, reason: string): void {
    this.send(client, {
      joinRef: channel.joinRef,
      ref: null,
      topic: channel.topic,
      event: 'system',
      payload: { extension: 'system', status: 'error', message: reason, channel: subTopic(channel.topic) },
    });
    this.send(client, { joinRef: channel.joinRef, ref: null, topic: channel.topic, event: 'phx_close', payload: {} });
    client.channels.delete(channel.topic);
  }
}
