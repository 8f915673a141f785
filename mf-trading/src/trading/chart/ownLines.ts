import { formatInteger } from '@repex/shared-ui/ui';

/** One of the user's own orders on the chart: a resting limit at its price, a waiting stop at its trigger. */
export interface OwnLine {
  price: number;
  side: 'buy' | 'sell';
  title: string;
}

/** The user's open orders and waiting stops on this token, as lines on the price chart. */
export function ownLines(
  orders: {
    side: string;
    price: number | null;
    stop_price: number | null;
    amount: number;
    filled: number;
    status: string;
  }[],
): OwnLine[] {
  return orders.flatMap((o): OwnLine[] => {
    const side = o.side === 'buy' ? 'buy' : 'sell';
    const left = formatInteger(o.amount - o.filled);
    if (o.status === 'pending' && o.stop_price !== null)
      return [{ price: o.stop_price, side, title: `Your stop ${side} ${left}` }];
    if (o.status === 'open' && o.price !== null) return [{ price: o.price, side, title: `Your ${side} ${left}` }];
    return [];
  });
}

/** What drawing a line needs of a chart's series (lightweight-charts' createPriceLine). */
interface Series {
  createPriceLine(options: {
    price: number;
    color: string;
    lineWidth: 1;
    lineStyle: 2;
    axisLabelVisible: boolean;
    title: string;
  }): unknown;
}

/** Draws the lines on a series: dashed, in the side's colour, titled on the price axis. */
export function drawOwnLines(series: Series, lines: OwnLine[], colors: { up: string; down: string }) {
  for (const l of lines)
    series.createPriceLine({
      price: l.price,
      color: l.side === 'buy' ? colors.up : colors.down,
      lineWidth: 1,
      lineStyle: 2, // dashed
      axisLabelVisible: true,
      title: l.title,
    });
}
