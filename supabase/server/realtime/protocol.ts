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
      const [joinRef, ref, topic, event, payload] = raw as [string | null, string | null, string, string, Record<string, unknown>];
      return { joinRef, ref, topic, event, payload: payload ?? {} };
    }
    if (raw && typeof raw === 'object') {
      const o = raw as { join_ref?: string; ref?: string; topic: string; event: string; payload?: Record<string, unknown> };
      return { joinRef: o.join_ref ?? null, ref: o.ref ?? null, topic: o.topic, event: o.event, payload: o.payload ?? {} };
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
