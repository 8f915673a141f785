import { useState } from 'react';
import { Button } from '@repex/shared-ui/ui';
import { OpenOrders } from './OpenOrders';
import { OrderHistory } from './OrderHistory';

/** The dashboard's Orders tab: the open ones (Cancel, Cancel All), or the history of the others. */
export function OrdersTab() {
  const [view, setView] = useState<'open' | 'history'>('open');
  const toggle = (
    <div role="group" aria-label="Which orders" style={{ display: 'flex', gap: 4 }}>
      {(
        [
          ['open', 'Open'],
          ['history', 'History'],
        ] as const
      ).map(([v, label]) => (
        <Button
          key={v}
          $size="sm"
          $variant={view === v ? 'secondary' : 'ghost'}
          aria-pressed={view === v}
          onClick={() => setView(v)}
        >
          {label}
        </Button>
      ))}
    </div>
  );
  return view === 'open' ? <OpenOrders toggle={toggle} /> : <OrderHistory toggle={toggle} />;
}
