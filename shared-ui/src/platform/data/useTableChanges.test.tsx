import { act, renderHook } from '@testing-library/react';
import { useTableChanges } from './useTableChanges';

// The hook's own logic under test: how it coalesces changes. A stand-in for supabase-js's channel
// hands it changes; the real Realtime path is covered by the integration and end-to-end tests.
let deliver: (change: { new: Record<string, unknown> }) => void = () => undefined;
jest.mock('../supabase', () => ({
  supabase: () => ({
    channel: () => {
      const channel = {
        on: (_kind: string, _filter: unknown, handler: typeof deliver) => {
          deliver = handler;
          return channel;
        },
        subscribe: () => channel,
      };
      return channel;
    },
    removeChannel: () => Promise.resolve(),
  }),
}));

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('useTableChanges', () => {
  it('coalesces a burst into one call with the last row', () => {
    const seen: unknown[] = [];
    renderHook(() => useTableChanges('wallet_transactions', undefined, (row) => seen.push(row.id), 150));
    act(() => {
      for (let id = 1; id <= 5; id++) deliver({ new: { id } });
      jest.advanceTimersByTime(150);
    });
    expect(seen).toEqual([5]);
  });

  it('still calls, a few times a second, while changes never rest', () => {
    const seen: unknown[] = [];
    renderHook(() => useTableChanges('wallet_transactions', undefined, (row) => seen.push(row.id), 150));
    act(() => {
      for (let id = 1; id <= 20; id++) {
        deliver({ new: { id } });
        jest.advanceTimersByTime(50); // a change every 50 ms for a second
      }
    });
    expect(seen.length).toBeGreaterThanOrEqual(6);
    expect(seen.at(-1)).toBe(18);
  });

  it('hands on every row of the burst, so none of its kinds of change is lost to the last', () => {
    const bursts: unknown[][] = [];
    renderHook(() => useTableChanges('wallet_transactions', undefined, (_row, burst) => bursts.push(burst), 150));
    act(() => {
      deliver({ new: { id: 1 } });
      deliver({ new: { id: 2 } });
      jest.advanceTimersByTime(150);
      deliver({ new: { id: 3 } });
      jest.advanceTimersByTime(150);
    });
    expect(bursts).toEqual([[{ id: 1 }, { id: 2 }], [{ id: 3 }]]);
  });
});
