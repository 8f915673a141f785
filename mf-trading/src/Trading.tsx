import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import styled from 'styled-components';
import { useWatchlist, useAppStore } from '@repex/shared-ui/platform';
import {
  Avatar,
  Badge,
  Button,
  Card,
  CardGrid,
  CardTitle,
  Change,
  ErrorState,
  Muted,
  Page,
  Skeleton,
  StatCard,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  VerifiedBadge,
  WatchStar,
  formatChange,
  formatDate,
  formatInteger,
  formatMoney,
  formatPrice,
  formatTime,
  media,
} from '@repex/shared-ui/ui';
import { OpenOrders } from './trading/OpenOrders';
import { OrderBook, type BookPick } from './trading/OrderBook';
import { ReputationInfo } from './trading/ReputationInfo';
import { useWatchers } from './trading/useWatchers';
import { UUID, useTrading } from './trading/useTrading';
import { OrderPanel } from './trading/OrderPanel';
import { PriceChart } from './trading/PriceChart';
import { RecentTrades } from './trading/RecentTrades';
import type { Side } from './trading/orderMath';

const Header = styled.div`
  display: flex;
  align-items: center;
  gap: 16px;
  flex-wrap: wrap;
  h1 {
    margin: 0;
    font-size: 26px;
    display: flex;
    align-items: center;
    gap: 8px;
  }
`;
const PriceBlock = styled.div`
  margin-left: auto;
  text-align: right;
  strong {
    display: block;
    font-size: 28px;
  }
  ${media.phone} {
    margin-left: 0;
    text-align: left;
  }
`;
const Watching = styled(Muted)`
  display: block;
  font-size: 13px;
`;
/**
 * Wide: the chart and the book on the left, the order panel beside them. Narrow: one column in
 * which the order panel follows the chart, so a phone user who tapped Trade reaches it without
 * scrolling past the book. The DOM follows the narrow order, so focus and reading order match.
 */
const Layout = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 1fr) 360px;
  grid-template-rows: auto 1fr;
  grid-template-areas: 'chart side' 'book side';
  gap: 16px;
  align-items: start;
  ${media.tablet} {
    grid-template-columns: minmax(0, 1fr);
    grid-template-rows: none;
    grid-template-areas: 'chart' 'side' 'book';
  }
`;
const ChartCard = styled(Card)`
  grid-area: chart;
`;
const BookCard = styled(Card)`
  grid-area: book;
`;
const Side = styled.div`
  grid-area: side;
  display: flex;
  flex-direction: column;
  gap: 16px;
  min-width: 0;
`;
const Info = styled.dl`
  margin: 0;
  display: grid;
  grid-template-columns: 1fr auto;
  gap: 10px;
  dt {
    color: ${({ theme }) => theme.colors.muted};
  }
  dd {
    margin: 0;
    font-weight: 600;
    text-align: right;
  }
`;

/** /trading/{id}: the token whose id is in the URL, spec section 2, Trading. */
export default function Trading() {
  const watchlist = useWatchlist();
  const { tokenId = '' } = useParams();
  const watchers = useWatchers(UUID.test(tokenId) ? tokenId : null);
  const [params] = useSearchParams();
  const initialSide: Side = params.get('side') === 'sell' ? 'sell' : 'buy';
  const me = useAppStore((s) => s.session?.user.id);
  const { token, history, book, tape, mine, orders, halt } = useTrading(tokenId, me);
  const halted = halt.data?.halt_reason ? halt.data : null;
  const [pick, setPick] = useState<(BookPick & { tokenId: string }) | undefined>();

  const back = (
    <Button as={Link} to="/market" $variant="ghost" $size="sm" style={{ alignSelf: 'flex-start' }}>
      ← Back to Market
    </Button>
  );

  if (token.error && token.data === undefined) {
    return (
      <Page data-remote="trading">
        {back}
        <Card>
          <ErrorState title="This token could not be loaded." message={token.error.message} onRetry={token.reload} />
        </Card>
      </Page>
    );
  }
  if (token.data === null) {
    return (
      <Page data-remote="trading">
        {back}
        <Card data-testid="token-not-found">
          <ErrorState
            title="Token not found"
            message="There is no reputation token at this address. It may have been delisted, or the link may be wrong."
          />
        </Card>
      </Page>
    );
  }
  const t = token.data;

  return (
    <Page data-remote="trading">
      {back}
      <Header>
        {t ? <Avatar name={t.name} src={t.avatar_url} size={56} /> : <Skeleton $width="56px" $height="56px" />}
        <div>
          <h1>
            {t?.name ?? <Skeleton $width="200px" $height="28px" />}
            {t?.verified && <VerifiedBadge />}
            {t && (
              <WatchStar
                on={watchlist.watched.has(t.id)}
                name={t.name}
                onToggle={() => void watchlist.toggle(t.id, t.name)}
              />
            )}
          </h1>
          {t && (
            <Muted>
              @{t.username} · <Badge $variant="secondary">{t.category}</Badge>
            </Muted>
          )}
        </div>
        <PriceBlock>
          <strong data-testid="token-price">
            {t ? formatPrice(t.price) : <Skeleton $width="100px" $height="30px" />}
          </strong>
          {t && <Change $value={t.change_24h}>{formatChange(t.change_24h)} (24h)</Change>}
          {watchers !== undefined && <Watching data-testid="watchers">{formatInteger(watchers)} watching now</Watching>}
        </PriceBlock>
      </Header>

      <CardGrid>
        <StatCard label="Reputation Score" value={t && `${t.reputation_score.toFixed(1)}/100`} />
        <StatCard label="Market Cap" value={t && formatMoney(t.market_cap)} />
        <StatCard label="24h Volume" value={t && formatMoney(t.volume_24h)} />
        <StatCard label="Holders" value={t && formatInteger(t.holders)} />
      </CardGrid>
      {t && <ReputationInfo tokenId={t.id} />}

      <Layout>
        <ChartCard>
          <CardTitle>Price Chart (24h, hourly)</CardTitle>
          {history.data ? <PriceChart points={history.data} /> : <Skeleton $height="280px" />}
        </ChartCard>
        <Side>
          {halted ? (
            <Card aria-label="Trading halted" data-testid="trading-halted">
              <CardTitle>Trading Halted</CardTitle>
              <p style={{ margin: '0 0 8px' }}>{halted.halt_reason}</p>
              <Muted>
                Since {formatDate(halted.halted_at!)}, {formatTime(halted.halted_at!)}. New orders are refused until the
                exchange resumes trading; your open orders stay on the book, and you can cancel them.
              </Muted>
            </Card>
          ) : t && mine.data ? (
            <OrderPanel
              key={`${t.id}-${initialSide}`}
              tokenId={t.id}
              tokenName={t.name}
              price={t.price}
              cash={mine.data.cash}
              held={mine.data.held}
              initialSide={initialSide}
              pick={pick?.tokenId === t.id ? pick : undefined}
            />
          ) : mine.error ? (
            <Card>
              <ErrorState title="Your balances could not be loaded." onRetry={mine.reload} />
            </Card>
          ) : (
            <Skeleton $height="520px" />
          )}
          {orders.data && t && <OpenOrders orders={orders.data} tokenName={t.name} />}
          <Card aria-label="Token Info">
            <CardTitle>Token Info</CardTitle>
            <Info>
              <dt>Total Supply</dt>
              <dd>{t ? formatInteger(t.total_supply) : '—'}</dd>
              <dt>Available</dt>
              <dd>{t ? formatInteger(t.available_supply) : '—'}</dd>
              <dt>Holders</dt>
              <dd>{t ? formatInteger(t.holders) : '—'}</dd>
              <dt>Your Balance</dt>
              <dd data-testid="your-balance">{mine.data ? `${formatInteger(mine.data.held)} tokens` : '—'}</dd>
            </Info>
          </Card>
        </Side>
        <BookCard>
          <Tabs defaultValue="book">
            <TabsList>
              <TabsTrigger value="book">Order Book</TabsTrigger>
              <TabsTrigger value="trades">Recent Trades</TabsTrigger>
            </TabsList>
            <TabsContent value="book">
              {book.error ? (
                <ErrorState title="The order book could not be loaded." onRetry={book.reload} />
              ) : book.data ? (
                <OrderBook levels={book.data} onPick={halted ? undefined : (p) => setPick({ ...p, tokenId })} />
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
        </BookCard>
      </Layout>
    </Page>
  );
}
