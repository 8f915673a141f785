import type { InvestPlan } from '@repex/shared-ui/contracts';
import { useExchangeSettings, useQuery } from '@repex/shared-ui/platform';
import { Field, FormDialog, Select, TextField, formatPrice } from '@repex/shared-ui/ui';
import { loadTokenChoices, type PlanTerms } from './data';
import { PlanPreview } from './PlanPreview';
import { ordinal, WEEKDAYS } from './schedule';
import { INDEX_CHOICE, usePlanForm } from './usePlanForm';
import { usePlanPreview } from './usePlanPreview';

/** New Plan and Edit Plan: what to buy, how much each time, and when. */
export function PlanDialog({
  plan,
  save,
  onClose,
}: {
  plan?: InvestPlan;
  save: (terms: PlanTerms) => Promise<void>;
  onClose: () => void;
}) {
  const form = usePlanForm(plan);
  const tokens = useQuery(loadTokenChoices, []);
  const settings = useExchangeSettings().data;
  const index = form.target === INDEX_CHOICE;
  const preview = usePlanPreview(form.amount, index ? null : form.target);
  return (
    <FormDialog
      title={plan ? 'Edit Plan' : 'New Auto-Invest Plan'}
      submitLabel={plan ? 'Save Plan' : 'Create Plan'}
      busyLabel="Saving..."
      onClose={onClose}
      send={async () => {
        const terms = form.terms();
        if (typeof terms === 'string') return terms;
        await save(terms);
        return null;
      }}
    >
      <TextField
        id="plan-amount"
        label="Amount each run ($)"
        inputMode="decimal"
        value={form.amount}
        onValue={form.setAmount}
        hint={
          settings &&
          `Between ${formatPrice(settings.auto_invest_min)} and ${formatPrice(settings.auto_invest_max)}, fee included. Tokens are whole: what does not buy one stays in your cash.`
        }
      />
      <Field label="Buy" htmlFor="plan-target" hint={index ? "Split by the index's weights at each run." : undefined}>
        <Select id="plan-target" value={form.target} onChange={(e) => form.setTarget(e.target.value)}>
          <option value={INDEX_CHOICE}>RepX Index basket</option>
          {tokens.data?.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </Select>
      </Field>
      {preview.data && <PlanPreview amount={Number(form.amount)} preview={preview.data} index={index} />}
      <Field
        label="Schedule"
        htmlFor="plan-frequency"
        hint="Dates are UTC. The first run is the first date from today."
      >
        <Select
          id="plan-frequency"
          value={form.frequency}
          onChange={(e) => form.setFrequency(e.target.value as PlanTerms['frequency'])}
        >
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
          <option value="monthly">Monthly</option>
        </Select>
      </Field>
      {form.frequency === 'weekly' && (
        <Field label="On" htmlFor="plan-weekday">
          <Select id="plan-weekday" value={form.weekday} onChange={(e) => form.setWeekday(e.target.value)}>
            {WEEKDAYS.map((d, i) => (
              <option key={d} value={i + 1}>
                {d}
              </option>
            ))}
          </Select>
        </Field>
      )}
      {form.frequency === 'monthly' && (
        <Field label="On the" htmlFor="plan-date" hint="A shorter month runs on its last day.">
          <Select id="plan-date" value={form.date} onChange={(e) => form.setDate(e.target.value)}>
            {Array.from({ length: 31 }, (_, i) => (
              <option key={i} value={i + 1}>
                {ordinal(i + 1)}
              </option>
            ))}
          </Select>
        </Field>
      )}
    </FormDialog>
  );
}
