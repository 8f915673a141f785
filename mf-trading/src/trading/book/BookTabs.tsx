import { ErrorState, Skeleton, Tabs, TabsContent, TabsList, TabsTrigger } from '@repex/shared-ui/ui';
import type { QueryState } from '@repex/shared-ui/platform';
import type { BookLevel, TapeTrade } from '../data';
import { DepthChart } from '../chart/DepthChart';
import { OrderBook, type BookPick } from './OrderBook';
import type { OwnLevels } from './ownLevels';
import { RecentTrades } from './RecentTrades';

/** The order book with its depth, and the recent trades, as two tabs. A price picked in the book goes to onPick. */
export function BookTabs({
  book,
  tape,
  onPick,
  mine,
}: {
  book: QueryState<BookLevel[]>;
  tape: QueryState<TapeTrade[]>;
  onPick?: (pick: BookPick) => void;
  /** The user's own open amount per level, which the book marks. */
  mine?: OwnLevels;
}) {
  return (
    <Tabs defaultValue="book">
      <TabsList>
        <TabsTrigger value="book">Order Book</TabsTrigger>
        <TabsTrigger value="trades">Recent Trades</TabsTrigger>
      </TabsList>
      <TabsContent value="book">
        {book.error ? (
          <ErrorState title="The order book could not be loaded." onRetry={book.reload} />
        ) : book.data ? (
          <>
            <OrderBook levels={book.data} onPick={onPick} mine={mine} />
            <DepthChart levels={book.data} />
          </>
        ) : (
          <Skeleton $height="220px" />
        )}
      </TabsContent>
      <TabsContent value="trades">
        {tape.error ? (
          <ErrorState title="Recent trades could not be loaded." onRetry={tape.reload} />
        ) : tape.data ? (
          <RecentTrades trades={tape.data} />
        ) : (
          <Skeleton $height="220px" />
        )}
      </TabsContent>
    </Tabs>
  );
}
