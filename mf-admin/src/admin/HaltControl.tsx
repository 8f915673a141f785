import { useState } from 'react';
import styled from 'styled-components';
import { toast } from '@repex/shared-ui/platform';
import { Badge, Button, Card, CardTitle, FormDialog, Muted, TextField } from '@repex/shared-ui/ui';
import { rpc } from './rpc';

const Row = styled.div`
  display: flex;
  align-items: center;
  gap: 12px;
  flex-wrap: wrap;
`;

/**
 * The exchange-wide halt, apart from the other settings: one button and its own confirmation, so
 * no one halts every market while changing a fee. Halting asks the reason traders are shown;
 * resuming asks why, for the audit log (admin_update_settings records both).
 */
export function HaltControl({
  halted,
  reason,
  onChanged,
}: {
  halted: boolean;
  reason: string | null;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const send = async () => {
    await rpc('admin_update_settings', {
      p_changes: halted
        ? { trading_halted: false, halt_reason: null }
        : { trading_halted: true, halt_reason: text.trim() },
      p_reason: text,
    });
    toast(
      halted
        ? { title: 'Trading Resumed', description: 'New orders are accepted again on every token.' }
        : { title: 'Trading Halted', description: 'New orders are refused on every token; cancelling still works.' },
    );
    onChanged();
    return null;
  };
  return (
    <Card aria-label="Exchange-wide halt">
      <CardTitle>Exchange-wide halt</CardTitle>
      <Row>
        {halted ? <Badge $variant="down">Halted</Badge> : <Badge $variant="secondary">Trading</Badge>}
        <Muted>
          {halted
            ? `New orders are refused: ${(reason ?? 'no reason given').replace(/\.$/, '')}.`
            : 'Every market is open. A halt refuses new orders everywhere; cancelling, deposits and withdrawals still work.'}
        </Muted>
        <Button
          $variant={halted ? 'default' : 'destructive'}
          onClick={() => {
            setText('');
            setOpen(true);
          }}
        >
          {halted ? 'Resume Trading' : 'Halt All Trading'}
        </Button>
      </Row>
      {open && (
        <FormDialog
          title={halted ? 'Resume trading?' : 'Halt all trading?'}
          submitLabel={halted ? 'Resume Trading' : 'Halt All Trading'}
          busyLabel={halted ? 'Resuming...' : 'Halting...'}
          destructive={!halted}
          send={send}
          onClose={() => setOpen(false)}
        >
          <Muted>
            {halted
              ? 'Every token opens to new orders at once.'
              : 'Every token stops taking new orders at once, until you resume. Traders see the reason below.'}
          </Muted>
          <TextField
            id="halt-all-reason"
            label={halted ? 'Why resume (kept in the audit log)' : 'Reason (shown to traders, kept in the audit log)'}
            value={text}
            maxLength={200}
            onValue={setText}
            required
          />
        </FormDialog>
      )}
    </Card>
  );
}
