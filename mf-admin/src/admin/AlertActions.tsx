import { Button, formatCount } from '@repex/shared-ui/ui';
import type { FraudAlert as Alert } from '@repex/shared-ui/contracts';
import { RULES } from './alerts';
import { act } from './rpc';
import { Actions } from './Users.styles';
import type { OwnToken } from './types';

/** An alert's actions: halt or resume its token, and while it is open, review, dismiss or confirm it. */
export function AlertActions({
  alert: a,
  token,
  onHalt,
  onConfirm,
  onChanged,
}: {
  alert: Alert;
  token: OwnToken | undefined;
  onHalt: (token: OwnToken) => void;
  onConfirm: () => void;
  onChanged: () => void;
}) {
  const review = (status: 'reviewing' | 'dismissed') =>
    void act(
      'admin_review_alert',
      { p_id: a.id, p_status: status },
      () => ({
        title: status === 'reviewing' ? 'Alert Under Review' : 'Alert Dismissed',
        description: `${RULES[a.rule]} alert #${a.id}.`,
      }),
      onChanged,
    );
  return (
    <Actions>
      {token && (
        <Button $size="sm" $variant="outline" onClick={() => onHalt(token)}>
          {token.halt_reason ? 'Resume Trading' : 'Halt Trading'}
        </Button>
      )}
      {(a.status === 'open' || a.status === 'reviewing') && (
        <>
          {a.status === 'open' && (
            <Button $size="sm" $variant="outline" onClick={() => review('reviewing')}>
              Review
            </Button>
          )}
          <Button $size="sm" $variant="ghost" onClick={() => review('dismissed')}>
            Dismiss
          </Button>
          <Button $size="sm" $variant="destructive" onClick={onConfirm}>
            Confirm
          </Button>
        </>
      )}
    </Actions>
  );
}

/** Runs the fraud rules now, and says how many suspicious patterns they found. */
export const scanNow = (onChanged: () => void) =>
  act(
    'admin_run_fraud_scan',
    {},
    (seen) => ({
      title: 'Scan Complete',
      description: `${formatCount(seen, 'suspicious pattern')} in the last 24 hours.`,
    }),
    onChanged,
  );
