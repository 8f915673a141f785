import { act, renderHook } from '@testing-library/react';
import { usePausedQuery } from './usePausedQuery';

describe('usePausedQuery: a read asked as the user types', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const flush = async (ms: number) => {
    await act(async () => {
      jest.advanceTimersByTime(ms);
      await Promise.resolve();
    });
  };

  it('asks once typing pauses, for the last key only; nothing for a null key', async () => {
    const asked: string[] = [];
    const { result, rerender } = renderHook(
      ({ key }: { key: string | null }) => usePausedQuery(key, async () => (asked.push(key!), `answer ${key}`), 200),
      { initialProps: { key: null as string | null } },
    );
    await flush(500);
    expect(asked).toEqual([]);
    expect(result.current).toEqual({ data: undefined, error: undefined, pending: false });

    rerender({ key: '1' });
    await flush(100);
    rerender({ key: '15' });
    expect(result.current.pending).toBe(true);
    await flush(200);
    expect(asked).toEqual(['15']);
    expect(result.current).toEqual({ data: 'answer 15', error: undefined, pending: false });
  });

  it('asks again when what it reads changes, keeping the last answer meanwhile; says a failure', async () => {
    let n = 0;
    const { result, rerender } = renderHook(
      ({ book }: { book: number }) =>
        usePausedQuery(
          'k',
          async () => {
            n++;
            if (book === 3) throw new Error('The server is away.');
            return n;
          },
          200,
          [book],
        ),
      { initialProps: { book: 1 } },
    );
    await flush(200);
    expect(result.current.data).toBe(1);
    rerender({ book: 2 });
    expect(result.current).toEqual({ data: 1, error: undefined, pending: false });
    await flush(200);
    expect(result.current.data).toBe(2);
    rerender({ book: 3 });
    await flush(200);
    expect(result.current).toEqual({ data: undefined, error: 'The server is away.', pending: false });
  });
});
