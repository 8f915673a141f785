import { usePriceAlerts } from '@repex/shared-ui/platform';
import { Card, CardTitle, Muted, NewAlertForm, PriceAlertList } from '@repex/shared-ui/ui';

/** The user's price alerts on this token: a new one, and the list with Edit and Remove. */
export function AlertsCard({ tokenId }: { tokenId: string }) {
  const { alerts, save, remove } = usePriceAlerts(tokenId);
  return (
    <Card aria-label="Price Alerts">
      <CardTitle>Price Alerts</CardTitle>
      <NewAlertForm tokenId={tokenId} save={save} />
      {alerts.data?.length === 0 && <Muted>No alerts on this token. You are told on any screen, and by mail.</Muted>}
      {alerts.data && <PriceAlertList alerts={alerts.data} save={save} remove={remove} />}
    </Card>
  );
}
