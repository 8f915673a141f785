import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useAppStore } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  CardGrid,
  ErrorState,
  Page,
  Skeleton,
  StatCard,
  formatInteger,
  formatMoney,
} from '@repex/shared-ui/ui';
import { AlertsCard } from './trading/AlertsCard';
import { AuctionCard } from './trading/auction/AuctionCard';
import { IntegrityCard } from './trading/IntegrityCard';
import { Discussion } from './trading/Discussion';
import { BookTabs } from './trading/book/BookTabs';
import { OfferingPanel } from './trading/offering/OfferingPanel';
import { OfferingResult } from './trading/offering/OfferingResult';
import { OpenOrders } from './trading/order/OpenOrders';
import { OrderPanel } from './trading/order/OrderPanel';
import { PriceCard } from './trading/chart/PriceCard';
import { ReputationInfo } from './trading/ReputationInfo';
import { TokenHeader } from './trading/TokenHeader';
import { BookCard, ChartCard, Detail, Layout, SideColumn } from './trading/Trading.styles';
import type { PanelPick } from './trading/order/useOrderForm';
import { PhoneTradeBar } from './trading/order/PhoneTradeBar';
import { HaltedCard, TokenInfo } from './trading/TradingSideCards';
import { useWatchers } from './trading/useWatchers';
import { UUID, useTrading } from './trading/useTrading';
import type { Side } from './trading/order/orderMath';

const Back = () => (
  <Button as={Link} to="/market" $variant="ghost" $size="sm" style={{ alignSelf: 'flex-start' }}>
    ← Back to Market
  </Button>
);

/** /trading/{id}: the token whose id is in the URL, spec section 2, Trading. */
export default function Trading() {
  const { tokenId = '' } = useParams();
  const watchers = useWatchers(UUID.test(tokenId) ? tokenId : null);
  const [params] = useSearchParams();
  const initialSide: Side = params.get('side') === 'sell' ? 'sell' : 'buy';
  const me = useAppStore((s) => s.session?.user.id);
  const { token, history, book, tape, mine, orders, ownBook, ownChart, halt, vesting, offering, volatility } =
    useTrading(tokenId, me);
  const auction = offering.data && offering.data.closed_at === null ? offering.data : null;
  const closed = offering.data && offering.data.closed_at !== null && offering.data.bid ? offering.data : null;
  const halted = halt.data?.halt_reason && halt.data.halted_at ? halt.data : null;
  const [pick, setPick] = useState<(PanelPick & { tokenId: string }) | undefined>();

  if (token.error && token.data === undefined) {
    return (
      <Page data-remote="trading">
        <Back />
        <Card>
          <ErrorState title="This token could not be loaded." message={token.error.message} onRetry={token.reload} />
        </Card>
      </Page>
    );
  }
  if (token.data === null) {
    return (
      <Page data-remote="trading">
        <Back />
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
      <Back />
      <TokenHeader token={t} watchers={watchers} />
      <Detail>
        <CardGrid>
          <StatCard label="Reputation Score" value={t && `${t.reputation_score.toFixed(1)}/100`} />
          <StatCard label="Market Cap" value={t && formatMoney(t.market_cap)} />
          <StatCard label="24h Volume" value={t && formatMoney(t.volume_24h)} />
          <StatCard label="Holders" value={t && formatInteger(t.holders)} />
        </CardGrid>
        {t && <ReputationInfo tokenId={t.id} />}
      </Detail>

      <Layout>
        <ChartCard>
          <PriceCard tokenId={tokenId} history={history} own={ownChart} />
        </ChartCard>
        <SideColumn>
          {closed && t && <OfferingResult offering={closed} bid={closed.bid!} tokenName={t.name} />}
          {!halted && t?.trading_phase === 'volatility_auction' && volatility.data && (
            <AuctionCard auction={volatility.data} tokenName={t.name} />
          )}
          {halted ? (
            <HaltedCard reason={halted.halt_reason!} since={halted.halted_at!} />
          ) : auction && t && mine.data ? (
            <OfferingPanel
              key={auction.id}
              tokenId={t.id}
              tokenName={t.name}
              offering={auction}
              bid={auction.bid}
              cash={mine.data.cash}
            />
          ) : t && mine.data && offering.data !== undefined ? (
            <OrderPanel
              key={`${t.id}-${initialSide}`}
              tokenId={t.id}
              tokenName={t.name}
              price={t.price}
              cash={mine.data.cash}
              held={mine.data.held}
              initialSide={initialSide}
              book={book.data}
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
          {t && <AlertsCard tokenId={t.id} />}
          <TokenInfo token={t} held={mine.data?.held} vesting={vesting.data} />
          {t && <IntegrityCard tokenId={t.id} />}
        </SideColumn>
        <BookCard>
          <BookTabs
            book={book}
            tape={tape}
            mine={ownBook}
            onPick={halted ? undefined : (p) => setPick({ ...p, tokenId })}
          />
        </BookCard>
      </Layout>
      {t && <Discussion key={t.id} tokenId={t.id} tokenName={t.name} isPerson={t.owner_id === me} me={me} />}
      {t && !halted && !auction && <PhoneTradeBar name={t.name} onSide={(side) => setPick({ side, tokenId })} />}
    </Page>
  );
}
