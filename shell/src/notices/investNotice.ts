import { formatPrice } from '@repex/shared-ui/ui';

/** An Auto-Invest run as Realtime delivers it: public.invest_runs' row. */
export interface RunRecord {
  status?: unknown;
  amount?: unknown;
  spent?: unknown;
  reason?: unknown;
}

/** What to tell the user when the scheduler has run one of their plans. */
export function investNotice(run: RunRecord): { title: string; description: string; variant?: 'destructive' } {
  const plan = `Your ${formatPrice(Number(run.amount))} plan`;
  const reason = typeof run.reason === 'string' ? run.reason : '';
  if (run.status === 'skipped')
    return { title: 'Auto-Invest Skipped', description: `${plan} did not buy: ${reason}`, variant: 'destructive' };
  const spent = `${plan} spent ${formatPrice(Number(run.spent))}, fee included.`;
  if (run.status === 'partial')
    return { title: 'Auto-Invest Partly Bought', description: `${spent} Part of it did not buy: ${reason}` };
  return { title: 'Auto-Invest Bought', description: spent };
}
