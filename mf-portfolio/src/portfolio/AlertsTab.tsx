import { Link } from 'react-router';
import { usePriceAlerts } from '@repex/shared-ui/platform';
import { EmptyState, ErrorState, PriceAlertList, SkeletonRows, Table } from '@repex/shared-ui/ui';

/** Every price alert of the user's, on any token, with Edit and Remove; new ones are set on a trading screen. */
export function AlertsTab() {
  const { alerts, save, remove } = usePriceAlerts(null);
  if (alerts.error && !alerts.data)
    return <ErrorState title="Your price alerts could not be loaded." onRetry={alerts.reload} />;
  if (!alerts.data)
    return (
      <Table>
        <tbody>
          <SkeletonRows rows={2} columns={4} />
        </tbody>
      </Table>
    );
  if (alerts.data.length === 0)
    return (
      <EmptyState>
        <span>
          No price alerts yet. Set one on a token&apos;s trading screen, from the <Link to="/market">market</Link>.
        </span>
      </EmptyState>
    );
  return <PriceAlertList alerts={alerts.data} withToken save={save} remove={remove} />;
}
