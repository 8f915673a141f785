/**
 * Phoenix channel frames as realtime-js sends them: vsn 2.0.0 text frames are JSON arrays
 * [join_ref, ref, topic, event, payload]; vsn 1.0.0 frames are objects. Replies use the same shape.
 */
export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

export function decode(text: string): Frame | null {
  try {
    const raw = JSON.parse(text) as unknown;
    if (Array.isArray(raw) && raw.length === 5) {
      const [joinRef, ref, topic, event, payload] = raw as [
        string | null,
        string | null,
        string,
        string,
        Record<string, unknown>,
      ];
      return { joinRef, ref, topic, event, payload: payload ?? {} };
    }
    if (raw && typeof raw === 'object') {
      const o = raw as {
        join_ref?: string;
        ref?: string;
        topic: string;
        event: string;
        payload?: Record<string, unknown>;
      };
      return {
        joinRef: o.join_ref ?? null,
        ref: o.ref ?? null,
        topic: o.topic,
        event: o.event,
        payload: o.payload ?? {},
      };
    }
  } catch {
    // not JSON: ignored, like any frame we do not understand
  }
  return null;
}

export function encode(vsn: string, f: Frame): string {
  if (vsn.startsWith('1')) {
    return JSON.stringify({ join_ref: f.joinRef, ref: f.ref, topic: f.topic, event: f.event, payload: f.payload });
  }
  return JSON.stringify([f.joinRef, f.ref, f.topic, f.event, f.payload]);
}

export interface Binding {
  id: number;
  event: string;
  schema: string;
  table?: string;
  filter?: string;
}

/** `col=eq.value` (the filters realtime-js sends); other operators are refused at join. */
export function parseFilter(filter: string | undefined): { column: string; value: string } | null | 'unsupported' {
  if (!filter) return null;
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=eq\.(.*)$/.exec(filter);
  return m ? { column: m[1]!, value: m[2]! } : 'unsupported';
}

/** A user broadcast: its event, its payload (JSON, or raw bytes) and optional metadata. */
export interface Broadcast {
  topic: string;
  event: string;
  payload: unknown;
  binary: boolean;
  meta?: Record<string, unknown>;
}

/**
 * vsn 2.0.0 sends a broadcast push as a binary frame (kind 3): kind, the lengths of join_ref, ref,
 * topic, event and metadata, the payload's encoding (0 bytes, 1 JSON), those fields, then the payload.
 */
export function decodeBroadcastPush(data: Buffer): { frame: Frame; broadcast: Broadcast } | null {
  if (data.length < 7 || data[0] !== 3) return null;
  const [joinRefLen, refLen, topicLen, eventLen, metaLen, encoding] = [
    data[1]!,
    data[2]!,
    data[3]!,
    data[4]!,
    data[5]!,
    data[6]!,
  ];
  let at = 7;
  const take = (n: number) => data.subarray(at, (at += n)).toString('utf8');
  const joinRef = take(joinRefLen);
  const ref = take(refLen);
  const topic = take(topicLen);
  const event = take(eventLen);
  const metaText = take(metaLen);
  const body = data.subarray(at);
  try {
    const payload = encoding === 1 ? (JSON.parse(body.toString('utf8') || 'null') as unknown) : Buffer.from(body);
    const meta = metaText ? (JSON.parse(metaText) as Record<string, unknown>) : undefined;
    return {
      frame: { joinRef: joinRef || null, ref: ref || null, topic, event: 'broadcast', payload: {} },
      broadcast: { topic, event, payload, binary: encoding !== 1, meta },
    };
  } catch {
    return null;
  }
}

/** A broadcast as a vsn 2.0.0 client receives it: a binary frame of kind 4. */
export function encodeBroadcast(b: Broadcast): Buffer {
  const topic = Buffer.from(b.topic);
  const event = Buffer.from(b.event);
  const meta = Buffer.from(b.meta ? JSON.stringify(b.meta) : '');
  const payload = b.binary ? Buffer.from(b.payload as Buffer) : Buffer.from(JSON.stringify(b.payload ?? null));
  return Buffer.concat([
    Buffer.from([4, topic.length, event.length, meta.length, b.binary ? 0 : 1]),
    topic,
    event,
    meta,
    payload,
  ]);
}
