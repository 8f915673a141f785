import { drawOwnLines, ownLines } from './ownLines';

describe("the user's own orders on the chart", () => {
  const order = (o: Partial<Parameters<typeof ownLines>[0][number]>) => ({
    side: 'buy',
    price: null,
    stop_price: null,
    amount: 10,
    filled: 0,
    status: 'open',
    ...o,
  });

  it('a resting limit at its price, a waiting stop at its trigger, with what is left of each', () => {
    expect(
      ownLines([
        order({ side: 'buy', price: 44.5, amount: 10, filled: 4 }),
        order({ side: 'sell', stop_price: 40, status: 'pending', amount: 20 }),
        order({ side: 'sell', price: 50, status: 'filled' }),
      ]),
    ).toEqual([
      { price: 44.5, side: 'buy', title: 'Your buy 6' },
      { price: 40, side: 'sell', title: 'Your stop sell 20' },
    ]);
  });

  it('draws each as a dashed line in its side’s colour, labelled on the price axis', () => {
    const drawn: unknown[] = [];
    drawOwnLines({ createPriceLine: (o) => drawn.push(o) }, ownLines([order({ price: 44.5 })]), {
      up: 'green',
      down: 'red',
    });
    expect(drawn).toEqual([
      { price: 44.5, color: 'green', lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: 'Your buy 10' },
    ]);
  });
});
