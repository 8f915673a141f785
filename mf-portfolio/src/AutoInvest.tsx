import { useState } from 'react';
import { Link } from 'react-router';
import { useExchangeSettings } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  CardTitle,
  EmptyState,
  ErrorState,
  Muted,
  Page,
  PageHeader,
  SkeletonRows,
  Table,
  formatPrice,
} from '@repex/shared-ui/ui';
import { PlanDialog } from './autoInvest/PlanDialog';
import { PlanList } from './autoInvest/PlanList';
import { RunHistory } from './autoInvest/RunHistory';
import { useAutoInvest } from './autoInvest/useAutoInvest';

const Loading = () => (
  <Table>
    <tbody>
      <SkeletonRows rows={2} columns={3} />
    </tbody>
  </Table>
);

/** Auto-Invest: recurring buys of a token or of the RepX Index basket, run by the exchange. */
export default function AutoInvest() {
  const { plans, runs, create, update, setPaused, remove } = useAutoInvest();
  const settings = useExchangeSettings().data;
  const [creating, setCreating] = useState(false);
  return (
    <Page data-remote="portfolio">
      <PageHeader
        title="Auto-Invest"
        subtitle="Recurring buys at market, run by the exchange on each plan's date (UTC), with the usual fee. A run that cannot buy is skipped and you are told why; the next one runs as usual."
        actions={<Button onClick={() => setCreating(true)}>New Plan</Button>}
      />
      <Card>
        <CardTitle>Your Plans</CardTitle>
        {settings && (
          <Muted>
            Each run buys {formatPrice(settings.auto_invest_min)} to {formatPrice(settings.auto_invest_max)}; up to{' '}
            {settings.auto_invest_max_plans} plans.
          </Muted>
        )}
        {plans.error && !plans.data ? (
          <ErrorState title="Your plans could not be loaded." message={plans.error.message} onRetry={plans.reload} />
        ) : !plans.data ? (
          <Loading />
        ) : plans.data.length === 0 ? (
          <EmptyState>
            No plans yet. Create one to buy a token, or the <Link to="/market">RepX Index</Link> basket, every day, week
            or month.
          </EmptyState>
        ) : (
          <PlanList plans={plans.data} update={update} setPaused={setPaused} remove={remove} />
        )}
      </Card>
      <Card>
        <CardTitle>Run History</CardTitle>
        {runs.error && !runs.data ? (
          <ErrorState title="Your runs could not be loaded." message={runs.error.message} onRetry={runs.reload} />
        ) : !runs.data ? (
          <Loading />
        ) : (
          <RunHistory runs={runs.data} />
        )}
      </Card>
      {creating && <PlanDialog save={create} onClose={() => setCreating(false)} />}
    </Page>
  );
}
