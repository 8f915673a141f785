import { Input, Label, Select } from '../primitives/Input';

/** The kinds of alert, in the words the forms show. */
const ALERT_KINDS = [
  { value: 'above', label: 'Trades at or above' },
  { value: 'below', label: 'Trades at or below' },
  { value: 'move', label: 'Moves in 24 hours by' },
] as const;
export type AlertKindValue = (typeof ALERT_KINDS)[number]['value'];

/** An alert's kind and value, the fields both the new-alert form and the edit dialog show. */
export function AlertFields({
  id,
  kind,
  value,
  onKind,
  onValue,
}: {
  id: string;
  kind: AlertKindValue;
  value: string;
  onKind: (kind: AlertKindValue) => void;
  onValue: (value: string) => void;
}) {
  return (
    <>
      <div>
        <Label htmlFor={`${id}-kind`}>Alert me when the price</Label>
        <Select id={`${id}-kind`} value={kind} onChange={(e) => onKind(e.target.value as AlertKindValue)}>
          {ALERT_KINDS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </Select>
      </div>
      <div>
        <Label htmlFor={`${id}-value`}>{kind === 'move' ? 'Move (%)' : 'Price (USD)'}</Label>
        <Input
          id={`${id}-value`}
          type="number"
          inputMode="decimal"
          step={kind === 'move' ? 0.5 : 0.01}
          min={0.01}
          value={value}
          onChange={(e) => onValue(e.target.value)}
        />
      </div>
    </>
  );
}
