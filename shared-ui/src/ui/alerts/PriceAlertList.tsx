import { useState } from 'react';
import styled from 'styled-components';
import { formatDate, formatPrice, formatTime } from '../format';
import { Button } from '../primitives/Button';
import { FormDialog } from '../primitives/FormDialog';
import { Muted } from '../primitives/States';
import { StackedTable, TableScroll } from '../primitives/Table';
import { AlertFields, type AlertKindValue } from './AlertFields';
import { alertCondition, alertValue, type ListedAlert } from './alertText';

const Actions = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
  justify-content: flex-end;
`;

/** What `save` is handed: the alert's new terms. It answers the refusal's words, or null once saved. */
export type SaveAlert = (terms: {
  tokenId: string;
  kind: AlertKindValue;
  value: number;
  alert?: number;
}) => Promise<string | null>;

/**
 * The user's price alerts: each one's condition and whether it fired (when, at what), with Edit
 * (which arms it again) and Remove. `withToken` names each one's token (the dashboard's list of
 * every alert); the calls are handed in, so the kit holds no client.
 */
export function PriceAlertList({
  alerts,
  withToken,
  save,
  remove,
}: {
  alerts: ListedAlert[];
  withToken?: boolean;
  save: SaveAlert;
  remove: (id: number) => Promise<void>;
}) {
  const [editing, setEditing] = useState<ListedAlert | null>(null);
  if (alerts.length === 0) return null;
  return (
    <>
      <TableScroll>
        <StackedTable aria-label="Price alerts">
          <thead>
            <tr>
              {withToken && <th>Token</th>}
              <th>When</th>
              <th>Status</th>
              <th aria-label="Action" />
            </tr>
          </thead>
          <tbody>
            {alerts.map((a) => (
              <tr key={a.id} data-testid="price-alert">
                {withToken && <td className="full">{a.name}</td>}
                <td data-label="When">{alertCondition(a)}</td>
                <td data-label="Status">
                  {a.fired_at ? (
                    <>
                      Fired at {formatPrice(a.fired_price ?? 0)}
                      <Muted style={{ display: 'block', fontSize: 12 }}>
                        {formatDate(a.fired_at)}, {formatTime(a.fired_at)}
                      </Muted>
                    </>
                  ) : (
                    <Muted>Waiting</Muted>
                  )}
                </td>
                <td>
                  <Actions>
                    <Button $size="sm" $variant="ghost" onClick={() => setEditing(a)}>
                      Edit
                    </Button>
                    <Button $size="sm" $variant="outline" onClick={() => void remove(a.id)}>
                      Remove
                    </Button>
                  </Actions>
                </td>
              </tr>
            ))}
          </tbody>
        </StackedTable>
      </TableScroll>
      {editing && <EditAlertDialog alert={editing} save={save} onClose={() => setEditing(null)} />}
    </>
  );
}

/** Edit: an alert's kind and value, saved by set_price_alert, which arms it again. */
function EditAlertDialog({ alert, save, onClose }: { alert: ListedAlert; save: SaveAlert; onClose: () => void }) {
  const [kind, setKind] = useState(alert.kind as AlertKindValue);
  const [value, setValue] = useState(String(alertValue(alert)));
  return (
    <FormDialog
      title={`Edit Alert on ${alert.name}`}
      submitLabel="Save Alert"
      busyLabel="Saving..."
      send={() => save({ tokenId: alert.token_id, kind, value: Number(value), alert: alert.id })}
      onClose={onClose}
    >
      <AlertFields id="edit-alert" kind={kind} value={value} onKind={setKind} onValue={setValue} />
    </FormDialog>
  );
}
