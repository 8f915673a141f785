import { AlertsTab } from './portfolio/AlertsTab';
import { Link } from 'react-router';
import styled from 'styled-components';
import { useAccountFeed, useAppStore, useMarketFeed, useQuery, useSoon, useWatchlist } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  CardGrid,
  Change,
  ErrorState,
  Page,
  PageHeader,
  StatCard,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  formatChange,
  formatMoney,
  formatSignedMoney,
  formatPrice,
  media,
} from '@repex/shared-ui/ui';
import { loadDashboard } from './portfolio/data';
import { patchDashboard } from './portfolio/live';
import { FirstSteps } from './portfolio/FirstSteps';
import { OrdersTab } from './portfolio/OrdersTab';
import { HoldingsTab, WatchlistTab } from './portfolio/DashboardTabs';
import { TransactionsTab } from './portfolio/TransactionsTab';

const Actions = styled.div`
  display: grid;
  grid-template-columns: repeat(4, minmax(0, 1fr));
  gap: 12px;
  ${media.phone} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
  }
`;

/** Spec section 2, Investment Dashboard. */
export default function Dashboard() {
  const userId = useAppStore((s) => s.session?.user.id)!;
  const data = useQuery(() => loadDashboard(userId), [userId]);
  const stars = useWatchlist();
  // Current prices (so values and P&L) move when anyone trades: the market's messages carry them.
  // What the user holds changes with their own account's notes, which read the dashboard again.
  useMarketFeed((ticks) => data.patch((d) => patchDashboard(d, ticks)), data.reload);
  useAccountFeed(useSoon(data.reload, 1_000, 300), data.reload);
  const p = data.data?.summary;

  return (
    <Page data-remote="portfolio">
      <PageHeader title="Investment Dashboard" subtitle="Track your reputation token portfolio." />
      {data.error && !data.data && (
        <Card>
          <ErrorState title="Your portfolio could not be loaded." message={data.error.message} onRetry={data.reload} />
        </Card>
      )}
      <CardGrid>
        <StatCard
          label="Total Portfolio Value"
          value={p && formatMoney(p.value)}
          hint={data.data && `Cash available: ${formatPrice(data.data.cash)}`}
        />
        <StatCard label="Total Invested" value={p && formatMoney(p.invested)} />
        <StatCard
          label="Unrealized P&L"
          value={p && <Change $value={p.unrealized}>{formatSignedMoney(p.unrealized)}</Change>}
          hint={p && p.invested > 0 ? formatChange((p.unrealized / p.invested) * 100) : undefined}
        />
        <StatCard
          label="Realized P&L"
          value={p && <Change $value={p.realized}>{formatSignedMoney(p.realized)}</Change>}
        />
      </CardGrid>
      <Actions>
        <Button as={Link} to="/wallet?action=deposit">
          Deposit Funds
        </Button>
        <Button as={Link} to="/wallet?action=withdraw" $variant="outline">
          Withdraw
        </Button>
        <Button as={Link} to="/auto-invest" $variant="outline">
          Auto-Invest
        </Button>
        <Button as={Link} to="/portfolio-analysis" $variant="outline">
          Portfolio Analysis
        </Button>
      </Actions>
      <FirstSteps />
      <Card>
        <Tabs defaultValue="holdings">
          <TabsList>
            <TabsTrigger value="holdings">Holdings</TabsTrigger>
            <TabsTrigger value="transactions">Transactions</TabsTrigger>
            <TabsTrigger value="watchlist">Watchlist</TabsTrigger>
            <TabsTrigger value="orders">Orders</TabsTrigger>
            <TabsTrigger value="alerts">Alerts</TabsTrigger>
          </TabsList>
          <TabsContent value="holdings">
            <HoldingsTab data={data.data} />
          </TabsContent>
          <TabsContent value="transactions">
            <TransactionsTab ownTokenId={data.data?.ownTokenId} />
          </TabsContent>
          <TabsContent value="watchlist">
            <WatchlistTab stars={stars} />
          </TabsContent>
          <TabsContent value="orders">
            <OrdersTab />
          </TabsContent>
          <TabsContent value="alerts">
            <AlertsTab />
          </TabsContent>
        </Tabs>
      </Card>
    </Page>
  );
}
