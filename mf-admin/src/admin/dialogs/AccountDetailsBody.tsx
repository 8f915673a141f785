import { type ReactNode } from 'react';
import { Button, Muted, deviceName, formatDate, formatInteger, formatPrice, formatTime } from '@repex/shared-ui/ui';
import type { AccountDetails, ApiKey } from '@repex/shared-ui/contracts';
import type { OwnToken } from '../types';

const Section = ({ title, empty, children }: { title: string; empty: boolean; children: ReactNode }) => (
  <section>
    <h3 style={{ margin: '4px 0', fontSize: 14 }}>{title}</h3>
    {empty ? <Muted>None.</Muted> : <ul style={{ margin: 0, paddingLeft: 18, fontSize: 13 }}>{children}</ul>}
  </section>
);
/** A moment as every screen writes it: Nov 28, 2026, 09:24 AM. */
const when = (iso: string) => `${formatDate(iso)}, ${formatTime(iso)}`;

/**
 * What admin_account_details says of one account: profile, own token, cash, holdings, orders,
 * trades, payments, bank accounts, sessions, API keys (each revocable), and the admin actions taken
 * on it. A bank account's
 * wait is measured against `openedAt`, when the details were opened.
 */
export function AccountDetailsBody({
  d,
  t,
  openedAt,
  onRevokeKey,
}: {
  d: AccountDetails;
  t: OwnToken | null | undefined;
  openedAt: number;
  onRevokeKey: (key: ApiKey) => void;
}) {
  return (
    <div data-testid="account-details" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div>
        <strong>{d.profile.full_name}</strong> · {d.profile.email} · {d.profile.status}
        {d.profile.verified ? ' · verified' : ''}
        <br />
        <Muted>
          Joined {when(d.profile.created_at)}; last sign-in{' '}
          {d.profile.last_sign_in_at ? when(d.profile.last_sign_in_at) : 'never'}; two-step verification{' '}
          {d.profile.two_step ? 'on' : 'off'}
        </Muted>
      </div>
      {t && (
        <div data-testid="own-token">
          Token {t.name}:{' '}
          {t.halt_reason === null ? 'trading open' : `trading halted since ${when(t.halted_at!)}: ${t.halt_reason}`}
        </div>
      )}
      <div>
        Cash {formatPrice(d.cash.available)} available, {formatPrice(d.cash.reserved)} reserved,{' '}
        {formatPrice(d.cash.pending_withdrawal)} held for withdrawals
      </div>
      <Section title="Holdings" empty={!d.holdings.length}>
        {d.holdings.map((h) => (
          <li key={h.token}>
            {formatInteger(h.amount)} {h.token}
            {h.reserved ? ` (${formatInteger(h.reserved)} in orders)` : ''}
          </li>
        ))}
      </Section>
      <Section title="Open orders" empty={!d.open_orders.length}>
        {d.open_orders.map((o) => (
          <li key={o.id}>
            #{o.id} {o.side} {formatInteger(o.amount)} {o.token}{' '}
            {o.stop_price !== null
              ? `when the price reaches ${formatPrice(o.stop_price)}, ${o.price === null ? 'at market' : `at ${formatPrice(o.price)}`}`
              : `at ${formatPrice(o.price ?? 0)}`}
          </li>
        ))}
      </Section>
      <Section title="Latest trades" empty={!d.trades.length}>
        {d.trades.map((t) => (
          <li key={t.id}>
            #{t.id} {t.side} {formatInteger(t.amount)} {t.token} at {formatPrice(t.price)}, {when(t.created_at)}
          </li>
        ))}
      </Section>
      <Section title="Deposits and withdrawals" empty={!d.payments.length}>
        {d.payments.map((p) => (
          <li key={p.id}>
            {p.type} {formatPrice(p.amount)} {p.status}
            {p.method ? `, ${p.method}` : ''}, {when(p.created_at)}
          </li>
        ))}
      </Section>
      <Section title="Bank accounts" empty={!d.bank_accounts.length}>
        {d.bank_accounts.map((b) => (
          <li key={b.id}>
            {b.label} •••• {b.account_last4}, added {when(b.created_at)}
            {b.removed_at
              ? `, removed ${when(b.removed_at)}`
              : Date.parse(b.usable_from) > openedAt
                ? `, receives withdrawals from ${when(b.usable_from)}`
                : ''}
          </li>
        ))}
      </Section>
      <Section title="Sessions" empty={!d.sessions.length}>
        {d.sessions.map((s) => (
          <li key={s.id}>
            {deviceName(s.user_agent)}, {s.ip ?? 'unknown address'}, since {when(s.created_at)}
            {s.refreshed_at ? `, refreshed ${when(s.refreshed_at)}` : ''}
          </li>
        ))}
      </Section>
      <Section title="API keys" empty={!d.api_keys.length}>
        {d.api_keys.map((k) => (
          <li key={k.id}>
            {k.name} ({k.prefix}…), {k.scopes.includes('trade') ? 'read and trade' : 'read only'}, created{' '}
            {when(k.created_at)}, last used {k.last_used_at ? when(k.last_used_at) : 'never'}
            {k.status === 'active' ? (
              <>
                {' '}
                <Button type="button" $variant="link" $size="sm" onClick={() => onRevokeKey(k)}>
                  Revoke
                </Button>
              </>
            ) : (
              `, ${k.status}`
            )}
          </li>
        ))}
      </Section>
      <Section title="Admin actions on this account" empty={!d.activity.length}>
        {d.activity.map((a) => (
          <li key={a.created_at + a.action}>
            {when(a.created_at)}: {a.action} by @{a.actor}
            {a.reason ? `: ${a.reason}` : ''}
          </li>
        ))}
      </Section>
    </div>
  );
}
