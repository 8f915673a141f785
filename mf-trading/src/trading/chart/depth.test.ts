import { depthPaths, depthSeries } from './depth';

const levels = [
  { side: 'buy', price: 9.9, amount: 10 },
  { side: 'sell', price: 10.2, amount: 5 },
  { side: 'buy', price: 9.8, amount: 30 },
  { side: 'sell', price: 10.1, amount: 15 },
];

describe("the book's depth", () => {
  it('adds up each side from the spread outwards', () => {
    expect(depthSeries(levels)).toEqual({
      bids: [
        { price: 9.9, total: 10 },
        { price: 9.8, total: 40 },
      ],
      asks: [
        { price: 10.1, total: 15 },
        { price: 10.2, total: 20 },
      ],
    });
  });
  it('draws both sides over one price axis, the deepest side reaching the top', () => {
    const paths = depthPaths(depthSeries(levels), 400, 100)!;
    expect(paths).toMatchObject({ low: 9.8, high: 10.2, most: 40 });
    // The bids' last step is 40 tokens at $9.80, the left edge, at the top of the box.
    expect(paths.bid).toMatch(/L0\.0,0\.0 L0,0\.0 L0,100 Z$/);
    expect(paths.ask.startsWith('M300.0,100')).toBe(true);
    expect(depthPaths({ bids: [], asks: [] }, 400, 100)).toBeNull();
  });
});
