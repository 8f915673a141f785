import { useState, type FormEvent } from 'react';
import styled from 'styled-components';
import { toast, useExchangeSettings } from '@repex/shared-ui/platform';
import { Button, ErrorState, Field, FormError, Muted, TextField, Textarea } from '@repex/shared-ui/ui';
import { HaltControl } from './HaltControl';
import { rpc } from './rpc';

/** The editable settings, as the admin types them (percentages for basis points). */
const FIELDS = [
  {
    key: 'fee_bps',
    label: 'Taker fee (%)',
    hint: 'Paid on each trade by the order that trades at once, buyer or seller.',
    percent: true,
  },
  {
    key: 'maker_fee_bps',
    label: 'Maker fee (%)',
    hint: 'Paid by the resting order a trade meets: at most the taker fee; below 0 it is a rebate, no larger than the taker fee.',
    percent: true,
  },
  { key: 'min_order_amount', label: 'Minimum order (tokens)', hint: 'The smallest order anyone may place.' },
  { key: 'max_price', label: 'Highest limit price ($)', hint: 'No order may ask or bid more per token.' },
  {
    key: 'max_open_orders',
    label: 'Open orders per account',
    hint: 'Most resting limit orders and waiting stops one account may hold.',
  },
  {
    key: 'market_band_bps',
    label: 'Market order band (%)',
    hint: 'How far from the last price a market order may trade (1 to 50); the rest is cancelled.',
    percent: true,
  },
  {
    key: 'volatility_band_bps',
    label: 'Volatility band (%)',
    hint: 'How far from its price of five minutes before a token may trade before a volatility auction (1 to 50).',
    percent: true,
  },
  {
    key: 'volatility_auction_seconds',
    label: 'Volatility auction (seconds)',
    hint: 'How long a volatility auction collects orders before it uncrosses (5 to 3,600).',
  },
  { key: 'deposit_min', label: 'Minimum deposit ($)', hint: 'Per deposit.' },
  { key: 'deposit_max', label: 'Maximum deposit ($)', hint: 'Per deposit.' },
  { key: 'withdrawal_min', label: 'Minimum withdrawal ($)', hint: 'Per withdrawal.' },
  { key: 'withdrawal_daily_limit', label: 'Withdrawal limit per day ($)', hint: 'Per account, over 24 hours.' },
  {
    key: 'new_bank_account_hold_hours',
    label: 'New bank account wait (hours)',
    hint: 'Before a newly added account may receive a withdrawal (0 to 168).',
  },
  {
    key: 'token_supply',
    label: 'New token supply',
    hint: 'Default total supply when a token application is approved.',
  },
  {
    key: 'token_founder_bps',
    label: 'Founder allocation (%)',
    hint: 'Share of a new token given to its person; the rest is offered.',
    percent: true,
  },
  { key: 'token_issue_price', label: 'Issue price ($)', hint: "Default price of a new token's offering." },
  {
    key: 'founder_vesting_months',
    label: 'Founder vesting (months)',
    hint: "A new token's founder allocation is released linearly over this (0 to 120).",
  },
  { key: 'founder_cliff_months', label: 'Founder cliff (months)', hint: 'Nothing is released before it.' },
  {
    key: 'offering_window_minutes',
    label: 'Offering window (minutes)',
    hint: "How long a new token's batch auction takes bids (1 to 10,080; 1,440 is a day).",
  },
  {
    key: 'offering_cap_bps',
    label: 'Offering cap per account (%)',
    hint: 'The most one account may bid for, as a share of the offering.',
    percent: true,
  },
  {
    key: 'creator_fee_share_bps',
    label: "Creator's fee share (%)",
    hint: "Of the exchange's fees on trades in a token, credited to its person in the trade.",
    percent: true,
  },
  { key: 'auto_invest_min', label: 'Auto-Invest minimum ($)', hint: 'The least one run of a plan may buy.' },
  { key: 'auto_invest_max', label: 'Auto-Invest maximum ($)', hint: 'The most one run of a plan may buy.' },
  { key: 'auto_invest_max_plans', label: 'Auto-Invest plans per account', hint: 'Active and paused (1 to 100).' },
] as const;
type Key = (typeof FIELDS)[number]['key'];
type Settings = Record<Key, number> & {
  trading_halted: boolean;
  halt_reason: string | null;
  admins_need_two_step: boolean;
  updated_at: string;
};

const Grid = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(240px, 1fr));
  gap: 16px;
`;
const Toggle = styled.label`
  display: flex;
  align-items: center;
  gap: 10px;
  font-weight: 600;
`;
const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: 16px;
`;

/** A yes-or-no setting with what it does beneath. */
function SettingToggle(props: {
  id: string;
  label: string;
  hint: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <>
      <Toggle>
        <input
          type="checkbox"
          checked={props.checked}
          onChange={(e) => props.onChange(e.target.checked)}
          aria-describedby={`${props.id}-hint`}
        />
        {props.label}
      </Toggle>
      <Muted id={`${props.id}-hint`}>{props.hint}</Muted>
    </>
  );
}

const shown = (f: (typeof FIELDS)[number], v: number) => String('percent' in f ? v / 100 : v);
const stored = (f: (typeof FIELDS)[number], text: string) =>
  'percent' in f ? Math.round(Number(text) * 100) : Number(text);

/** System Settings: every setting of the exchange, changed in one audited call. */
export function SettingsForm({ onSaved }: { onSaved: () => void }) {
  const current = useExchangeSettings();
  if (current.error && !current.data)
    return (
      <ErrorState title="Settings could not be loaded." message={current.error.message} onRetry={current.reload} />
    );
  // The form appears only with the stored values, so nothing typed before they arrive is overwritten;
  // each saved version starts a fresh form.
  if (!current.data) return <Muted role="status">Loading settings...</Muted>;
  return (
    <SettingsEditor
      key={current.data.updated_at}
      settings={current.data}
      onSaved={() => {
        current.reload();
        onSaved();
      }}
    />
  );
}

function SettingsEditor({ settings: c, onSaved }: { settings: Settings; onSaved: () => void }) {
  const [draft, setDraft] = useState<Record<string, string>>(() =>
    Object.fromEntries(FIELDS.map((f) => [f.key, shown(f, c[f.key])])),
  );
  const [adminsTwoStep, setAdminsTwoStep] = useState(c.admins_need_two_step);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const changes: Record<string, number | boolean | string | null> = {};
    for (const f of FIELDS) {
      const text = (draft[f.key] ?? '').trim();
      const value = stored(f, text);
      if (text === '' || !Number.isFinite(value)) return setError(`${f.label}: enter a number.`);
      if (value !== c[f.key]) changes[f.key] = value;
    }
    if (adminsTwoStep !== c.admins_need_two_step) changes.admins_need_two_step = adminsTwoStep;
    if (!Object.keys(changes).length) return setError('Nothing has changed.');
    setBusy(true);
    setError(undefined);
    try {
      await rpc('admin_update_settings', { p_changes: changes, p_reason: reason });
      toast({
        title: 'Settings Saved',
        description: `${Object.keys(changes).length} setting(s) changed; they apply from the next order.`,
      });
      onSaved();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <HaltControl halted={c.trading_halted} reason={c.halt_reason} onChanged={onSaved} />
      <Form onSubmit={save} aria-label="System Settings">
        <Grid>
          {FIELDS.map((f) => (
            <TextField
              key={f.key}
              id={`setting-${f.key}`}
              label={f.label}
              hint={f.hint}
              inputMode="decimal"
              value={draft[f.key] ?? ''}
              onValue={(value) => setDraft((d) => ({ ...d, [f.key]: value }))}
            />
          ))}
        </Grid>
        <SettingToggle
          id="admins-two-step"
          label="Admins must use two-step verification"
          checked={adminsTwoStep}
          onChange={setAdminsTwoStep}
          hint="An admin without an authenticator app can then do nothing as one until they turn it on in Profile › Settings. Turn it on for your own account first."
        />
        <Field label="Why (kept in the audit log)" htmlFor="setting-reason">
          <Textarea id="setting-reason" value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
        </Field>
        {error && <FormError>{error}</FormError>}
        <div>
          <Button type="submit" disabled={busy}>
            {busy ? 'Saving...' : 'Save Settings'}
          </Button>
        </div>
      </Form>
    </>
  );
}
