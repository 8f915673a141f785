import type { Database } from './db/database';
import { notifiedLoop } from './notifiedLoop';

/** Only what the loop uses of a database: LISTEN, with a way to send a notice. */
function listeningDb() {
  const listeners = new Set<() => void>();
  const db = {
    listen: (_channel: string, onPayload: () => void) => {
      listeners.add(onPayload);
      return Promise.resolve(() => {
        listeners.delete(onPayload);
        return Promise.resolve();
      });
    },
  } as unknown as Database;
  return { db, notify: () => listeners.forEach((l) => l()), listening: () => listeners.size };
}

/** Lets the promises already resolved run their callbacks (no timer: fake timers may be on). */
async function settled() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A run that waits until it is let go. */
function gatedWork() {
  const gates: (() => void)[] = [];
  let runs = 0;
  const work = () => {
    runs++;
    return new Promise<void>((resolve) => gates.push(resolve));
  };
  const release = async () => {
    gates.shift()?.();
    await settled();
  };
  return { work, release, runs: () => runs };
}

describe('the workers’ notified loop', () => {
  it('runs at once, never twice together, and once more for notices that came while it ran', async () => {
    const { db, notify } = listeningDb();
    const gated = gatedWork();
    const loop = await notifiedLoop(db, { name: 'test', channel: 'c', pollMs: 60_000 }, gated.work);
    expect(gated.runs()).toBe(1);
    notify();
    notify();
    expect(gated.runs()).toBe(1); // the first is still running
    await gated.release();
    expect(gated.runs()).toBe(2); // the two notices: one more run
    await gated.release();
    expect(gated.runs()).toBe(2);
    notify();
    expect(gated.runs()).toBe(3);
    await gated.release();
    await loop.close();
  });

  it('logs a failure and runs again on the next notice', async () => {
    const { db, notify } = listeningDb();
    const lines: string[] = [];
    let runs = 0;
    const loop = await notifiedLoop(
      db,
      { name: 'test', channel: 'c', pollMs: 60_000, log: (l) => lines.push(l) },
      () => {
        runs++;
        return runs === 1 ? Promise.reject(new Error('the database went away')) : Promise.resolve();
      },
    );
    await settled();
    expect(lines).toEqual(['error test: the database went away']);
    notify();
    expect(runs).toBe(2);
    await loop.close();
  });

  it('polls, and after close neither polls nor listens, having waited for the run', async () => {
    jest.useFakeTimers();
    try {
      const { db, listening } = listeningDb();
      const gated = gatedWork();
      const loop = await notifiedLoop(db, { name: 'test', channel: 'c', pollMs: 1000 }, gated.work);
      await gated.release();
      jest.advanceTimersByTime(1000);
      expect(gated.runs()).toBe(2);
      let closed = false;
      const closing = loop.close().then(() => (closed = true));
      await Promise.resolve();
      expect(closed).toBe(false); // the run is still going
      await gated.release();
      await closing;
      expect(listening()).toBe(0);
      jest.advanceTimersByTime(5000);
      expect(gated.runs()).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
