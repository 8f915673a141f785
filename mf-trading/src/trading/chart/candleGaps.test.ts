import { withGaps } from './candleGaps';

describe('candles keep their place in time', () => {
  const bar = (time: number) => ({ time, close: time });

  it('an interval without trades is an empty slot, so quiet periods show as gaps', () => {
    expect(withGaps([bar(0), bar(60), bar(240)], 60)).toEqual([
      bar(0),
      bar(60),
      { time: 120 },
      { time: 180 },
      bar(240),
    ]);
  });

  it('side by side candles need no slot; one candle is itself', () => {
    expect(withGaps([bar(0), bar(300)], 300)).toEqual([bar(0), bar(300)]);
    expect(withGaps([bar(600)], 60)).toEqual([bar(600)]);
    expect(withGaps([], 60)).toEqual([]);
  });

  it('keeps the latest slots when a long quiet spell would pass the most bars drawn', () => {
    const slots = withGaps([bar(0), bar(60 * 10_000)], 60, 5);
    expect(slots).toEqual([
      { time: 60 * 9_996 },
      { time: 60 * 9_997 },
      { time: 60 * 9_998 },
      { time: 60 * 9_999 },
      bar(60 * 10_000),
    ]);
  });
});
