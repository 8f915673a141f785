import { act, renderHook } from '@testing-library/react';
import { followTopic, useSoon } from './feeds';

// The platform's own logic under test: one channel per topic, shared; resync after a rejoin. A
// stand-in for supabase-js's channel; the real Realtime path is covered by the integration and
// end-to-end tests.
const made: { name: string; deliver: (m: { event: string; payload: unknown }) => void; status: (s: string) => void }[] =
  [];
const removed: string[] = [];
jest.mock('../supabase', () => ({
  supabase: () => ({
    auth: { onAuthStateChange: () => undefined },
    channel: (name: string) => {
      const entry = {
        name,
        deliver: (_m: { event: string; payload: unknown }) => undefined,
        status: (_s: string) => undefined,
      };
      made.push(entry);
      const channel = {
        on: (_kind: string, _filter: unknown, handler: typeof entry.deliver) => {
          entry.deliver = handler;
          return channel;
        },
        subscribe: (cb: typeof entry.status) => {
          entry.status = cb;
          return channel;
        },
      };
      return channel;
    },
    removeChannel: () => {
      removed.push(made.at(-1)!.name);
      return Promise.resolve();
    },
  }),
}));

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('followTopic', () => {
  it('shares one channel among the screens that follow a topic, and tells each of a rejoin', () => {
    const heard: string[] = [];
    const resynced: string[] = [];
    const listener = (who: string) => ({
      message: (event: string) => heard.push(`${who}:${event}`),
      resync: () => resynced.push(who),
    });
    const stopA = followTopic('market', listener('a'));
    const stopB = followTopic('market', listener('b'));
    expect(made.map((m) => m.name)).toEqual(['market']);
    const channel = made[0]!;
    channel.status('SUBSCRIBED');
    channel.deliver({ event: 'token', payload: {} });
    expect(heard).toEqual(['a:token', 'b:token']);
    expect(resynced).toEqual([]); // the first join is no gap
    channel.status('CHANNEL_ERROR');
    channel.status('SUBSCRIBED');
    expect(resynced).toEqual(['a', 'b']);

    stopA();
    stopB();
    // A screen that follows it again soon (the next screen) keeps the same join...
    const stopC = followTopic('market', listener('c'));
    jest.advanceTimersByTime(10_000);
    expect(made).toHaveLength(1);
    expect(removed).toEqual([]);
    // ...and once nobody has followed it for a while, it is left.
    stopC();
    jest.advanceTimersByTime(10_000);
    expect(removed).toEqual(['market']);
  });
});

describe('useSoon', () => {
  it('runs once for a burst of asks, never within its minimum of the last run', () => {
    // The jitter at its longest, so that the runs fall where the steps below look.
    jest.spyOn(Math, 'random').mockReturnValue(0.999);
    let runs = 0;
    const { result } = renderHook(() => useSoon(() => runs++, 1_000, 500));
    act(() => {
      for (let i = 0; i < 10; i++) result.current();
      jest.advanceTimersByTime(500);
    });
    expect(runs).toBe(1);
    act(() => {
      result.current();
      jest.advanceTimersByTime(900);
    });
    expect(runs).toBe(1); // not within a second of the last
    act(() => {
      jest.advanceTimersByTime(700);
    });
    expect(runs).toBe(2);
    jest.restoreAllMocks();
  });
});
