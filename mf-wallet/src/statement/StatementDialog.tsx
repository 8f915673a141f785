import { Field, FormDialog, Input, Select } from '@repex/shared-ui/ui';
import { useStatementForm } from './useStatementForm';

/** Download a statement: a month or any range of days, as PDF or CSV. */
export function StatementDialog({ onClose }: { onClose: () => void }) {
  const f = useStatementForm();
  return (
    <FormDialog
      title="Download Statement"
      submitLabel="Download"
      busyLabel="Preparing..."
      send={f.download}
      onClose={onClose}
    >
      <Field
        label="Period"
        htmlFor="statement-kind"
        hint="Opening and closing cash, every cash movement, every trade with its fee, positions at the close and realized gains by lot. Days are UTC."
      >
        <Select id="statement-kind" value={f.kind} onChange={(e) => f.setKind(e.target.value as 'month' | 'range')}>
          <option value="month">A month</option>
          <option value="range">A range of days</option>
        </Select>
      </Field>
      {f.kind === 'month' ? (
        <Field label="Month" htmlFor="statement-month">
          <Input
            id="statement-month"
            type="month"
            max={f.today.slice(0, 7)}
            value={f.month}
            onChange={(e) => f.setMonth(e.target.value)}
          />
        </Field>
      ) : (
        <>
          <Field label="First day" htmlFor="statement-from">
            <Input
              id="statement-from"
              type="date"
              max={f.today}
              value={f.from}
              onChange={(e) => f.setFrom(e.target.value)}
            />
          </Field>
          <Field label="Last day" htmlFor="statement-to">
            <Input id="statement-to" type="date" max={f.today} value={f.to} onChange={(e) => f.setTo(e.target.value)} />
          </Field>
        </>
      )}
      <Field label="Format" htmlFor="statement-format">
        <Select id="statement-format" value={f.format} onChange={(e) => f.setFormat(e.target.value as 'pdf' | 'csv')}>
          <option value="pdf">PDF</option>
          <option value="csv">CSV (spreadsheet)</option>
        </Select>
      </Field>
    </FormDialog>
  );
}
