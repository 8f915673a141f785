/**
 * What one socket, and one address, may ask of Realtime, where Supabase Realtime has its limits:
 * anyone holding the public anon key can open sockets, so without them one client could stall
 * every other user (a huge frame relayed to every member, a flood of broadcasts, a thousand
 * sockets). An offender gets the protocol's error and is disconnected.
 */
export interface RealtimeLimits {
  /** The largest frame a client may send, in bytes (Supabase's broadcast payload limit, 256 KB). */
  maxMessageBytes: number;
  /** Frames a socket may send per second (heartbeats included), and in a burst. */
  messagesPerSecond: number;
  /** Bytes all the sockets of one address may send per second, and in a burst. */
  bytesPerSecondPerAddress: number;
  /** Channel joins a socket may make per second. */
  joinsPerSecond: number;
  /** Channels one socket may be a member of at once. */
  channelsPerClient: number;
  /** Sockets open at once from one address. */
  socketsPerAddress: number;
  /** The largest presence payload a member may track, in bytes (it is relayed to every member). */
  maxPresenceBytes: number;
  /**
   * What the server may hold queued for one socket, in bytes, before that socket misses broadcasts
   * and its channel is told to resync (eight times as much closes it): a client that stops reading
   * costs the server bounded memory and holds up nobody. Not lifted by "off".
   */
  sendBufferBytes: number;
}

export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = {
  maxMessageBytes: 256 * 1024,
  messagesPerSecond: 100,
  bytesPerSecondPerAddress: 1024 * 1024,
  joinsPerSecond: 10,
  channelsPerClient: 100,
  socketsPerAddress: 100,
  maxPresenceBytes: 4 * 1024,
  sendBufferBytes: 1024 * 1024,
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** For benchmarks that open far more sockets from one address than a person does. */
const NO_REALTIME_LIMITS: RealtimeLimits = {
  maxMessageBytes: 100 * 1024 * 1024,
  messagesPerSecond: UNLIMITED,
  bytesPerSecondPerAddress: UNLIMITED,
  joinsPerSecond: UNLIMITED,
  channelsPerClient: UNLIMITED,
  socketsPerAddress: UNLIMITED,
  maxPresenceBytes: UNLIMITED,
  sendBufferBytes: DEFAULT_REALTIME_LIMITS.sendBufferBytes,
};

/** REALTIME_LIMITS="socketsPerAddress=20,messagesPerSecond=50" overrides some; "off" lifts them. */
export function realtimeLimitsFromEnv(text: string | undefined): RealtimeLimits {
  if (text === 'off') return NO_REALTIME_LIMITS;
  const limits = { ...DEFAULT_REALTIME_LIMITS };
  for (const part of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(\w+)=(\d+)$/.exec(part);
    if (!m || !(m[1]! in limits) || Number(m[2]) < 1)
      throw new Error(
        `REALTIME_LIMITS: cannot read "${part}" (expected name=number, at least 1; names: ${Object.keys(limits).join(', ')})`,
      );
    limits[m[1] as keyof RealtimeLimits] = Number(m[2]);
  }
  return limits;
}

/** A token bucket in memory: sockets belong to one process, so their limits do too. */
export class Bucket {
  private tokens: number;
  private at = Date.now();

  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }

  /** Takes `n` tokens if they are there; false (nothing taken) if not. */
  take(n = 1): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

/** Each address's open sockets and its shared byte budget. */
export class AddressBook {
  private readonly open = new Map<string, { sockets: number; bytes: Bucket }>();

  constructor(private readonly limits: RealtimeLimits) {}

  /** Counts a new socket from `address`, or refuses it (false) when the address has too many. */
  admit(address: string): boolean {
    const entry = this.open.get(address) ?? { sockets: 0, bytes: new Bucket(this.limits.bytesPerSecondPerAddress) };
    if (entry.sockets >= this.limits.socketsPerAddress) return false;
    entry.sockets++;
    this.open.set(address, entry);
    return true;
  }

  release(address: string): void {
    const entry = this.open.get(address);
    if (!entry) return;
    if (--entry.sockets <= 0) this.open.delete(address);
  }

  /** Takes `bytes` from the address's budget: false when it has sent too much this second. */
  spend(address: string, bytes: number): boolean {
    return this.open.get(address)?.bytes.take(bytes) ?? true;
  }
}
