import type { WebSocket } from 'ws';
import type { Claims } from '../auth/jwt';
import { encode, encodeBroadcast, type Binding, type Broadcast, type Frame } from './protocol';
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

/**
 * What a socket may have queued and not yet sent: past `soft`, broadcasts to it are dropped and
 * the channel is told to resync (overflow); past `hard`, the socket is closed, as a client that
 * stopped reading would otherwise hold the server's memory without bound.
 */
export interface SendBuffer {
  soft: number;
  hard: number;
}

/** Sockets a relay writes to before it lets the process answer anything else. */
const RELAY_SLICE = 64;
/** Messages waiting to be relayed before the oldest is given up (its members resync). */
const MAX_OUTBOX = 2_000;

/** Counted since the process started (the /metrics endpoint reads them). */
export interface HubCounters {
  framesSent: number;
  broadcastsDropped: number;
  channelsResynced: number;
  socketsClosedForBuffer: number;
}

/** The process's sockets, its rooms and their members, and how to send to them. */
export class Hub {
  readonly clients = new Set<Client>();
  /** Each room's members in this process: a relay visits its members only, not every socket. */
  private readonly rooms = new Map<RoomKey, Map<Channel, Client>>();
  readonly counters: HubCounters = {
    framesSent: 0,
    broadcastsDropped: 0,
    channelsResynced: 0,
    socketsClosedForBuffer: 0,
  };
  /** A member whose queue passed the soft bound: set by the server, which ends the channel so it rejoins. */
  onOverflow: (client: Client, channel: Channel) => void = () => undefined;

  constructor(readonly buffer: SendBuffer = { soft: 1 << 20, hard: 8 << 20 }) {}

  /** A member joins a room (replacing what it held under the same topic). */
  add(client: Client, channel: Channel): void {
    const before = client.channels.get(channel.topic);
    if (before) this.remove(client, before);
    client.channels.set(channel.topic, channel);
    let members = this.rooms.get(channel.room);
    if (!members) this.rooms.set(channel.room, (members = new Map()));
    members.set(channel, client);
  }

  /** A member leaves its room. */
  remove(client: Client, channel: Channel): void {
    if (client.channels.get(channel.topic) === channel) client.channels.delete(channel.topic);
    const members = this.rooms.get(channel.room);
    if (!members) return;
    members.delete(channel);
    if (members.size === 0) this.rooms.delete(channel.room);
  }

  /** Every member of a room in this process, with the channel it joined by. */
  *members(room: RoomKey): Generator<[Client, Channel]> {
    for (const [channel, client] of this.rooms.get(room) ?? []) yield [client, channel];
  }

  /** Whether anyone in this process is a member of a room whose key starts with `prefix`. */
  hasRoom(predicate: (room: RoomKey) => boolean): boolean {
    for (const room of this.rooms.keys()) if (predicate(room)) return true;
    return false;
  }

  /**
   * Sends a frame that must arrive (a reply, a private row's change): a socket whose queue is past
   * the hard bound is closed instead, and its client reconnects and resyncs.
   */
  send(c: Client, f: Frame): void {
    this.write(c, encode(c.vsn, f), false);
  }

  private write(c: Client, data: string | Buffer, binary: boolean): boolean {
    const socket = c.socket;
    if (socket.readyState !== socket.OPEN) return false;
    if (socket.bufferedAmount > this.buffer.hard) {
      this.counters.socketsClosedForBuffer++;
      socket.terminate();
      return false;
    }
    socket.send(data, { binary, compress: false, fin: true });
    this.counters.framesSent++;
    return true;
  }

  /** Relays waiting their turn, oldest first: each member hears a room's messages in order. */
  private readonly outbox: {
    b: Broadcast;
    sender: Client | null;
    members: [Channel, Client][];
    at: number;
    frames: Map<string, Buffer>;
  }[] = [];
  private draining = false;

  /**
   * A broadcast to every member of a room (but `sender`, unless it asked for its own): encoded
   * once per protocol version and topic as joined, sent without waiting on any socket. A member
   * whose socket is past the soft bound misses it and is told to resync (onOverflow): one slow
   * reader never holds up the others nor grows the server's memory. A room of thousands is served
   * a slice at a time, so requests and other rooms are answered between the slices rather than
   * after the last socket.
   */
  relay(room: RoomKey, b: Broadcast, sender: Client | null = null): void {
    const members = this.rooms.get(room);
    if (!members?.size) return;
    this.outbox.push({ b, sender, members: [...members], at: 0, frames: new Map() });
    // Falling behind for good (more messages than the process can send): the oldest message's
    // members who have not heard it yet are told to resync, rather than the queue growing.
    while (this.outbox.length > MAX_OUTBOX) {
      const late = this.outbox.shift()!;
      for (const [channel, client] of late.members.slice(late.at))
        if (client.channels.get(channel.topic) === channel) this.onOverflow(client, channel);
    }
    if (!this.draining) this.drain();
  }

  private drain(): void {
    this.draining = true;
    let budget = RELAY_SLICE;
    while (budget > 0 && this.outbox.length) {
      const job = this.outbox[0]!;
      const frames = job.frames;
      const json = job.b.binary ? null : JSON.stringify(job.b.payload ?? null);
      while (budget > 0 && job.at < job.members.length) {
        const [channel, client] = job.members[job.at++]!;
        budget--;
        if (client === job.sender && !channel.self) continue;
        if (client.socket.readyState !== client.socket.OPEN || client.channels.get(channel.topic) !== channel) continue;
        if (client.socket.bufferedAmount > this.buffer.soft) {
          this.counters.broadcastsDropped++;
          this.onOverflow(client, channel);
          continue;
        }
        const v1 = client.vsn.startsWith('1');
        const key = `${v1 ? 1 : 2}:${channel.topic}`;
        let frame = frames.get(key);
        if (frame === undefined) {
          frame = v1
            ? Buffer.from(
                `{"join_ref":null,"ref":null,"topic":${JSON.stringify(channel.topic)},"event":"broadcast","payload":{"type":"broadcast","event":${JSON.stringify(job.b.event)},"payload":${json}}}`,
              )
            : encodeBroadcast({ ...job.b, topic: channel.topic });
          frames.set(key, frame);
        }
        this.write(client, frame, !v1);
      }
      if (job.at >= job.members.length) this.outbox.shift();
    }
    if (this.outbox.length) setImmediate(() => this.drain());
    else this.draining = false;
  }

  reply(c: Client, f: Frame, status: 'ok' | 'error', response: Record<string, unknown>): void {
    this.send(c, { joinRef: f.joinRef, ref: f.ref, topic: f.topic, event: 'phx_reply', payload: { status, response } });
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
    this.remove(client, channel);
  }

  /**
   * Ends a member's channel with phx_error: Phoenix clients (realtime-js) rejoin it after a
   * moment, and a screen that hears SUBSCRIBED again reads what it may have missed.
   */
  error(client: Client, channel: Channel, reason: string): void {
    this.counters.channelsResynced++;
    this.send(client, {
      joinRef: channel.joinRef,
      ref: channel.joinRef,
      topic: channel.topic,
      event: 'phx_error',
      payload: { reason },
    });
    this.remove(client, channel);
  }
}
