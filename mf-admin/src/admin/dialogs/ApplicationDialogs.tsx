import { useState } from 'react';
import styled from 'styled-components';
import { useExchangeSettings, useQuery } from '@repex/shared-ui/platform';
import { SocialAnalysisView, TextField, Muted, formatCount, formatInteger, formatPrice } from '@repex/shared-ui/ui';
import { rpc } from '../rpc';
import { ActionDialog, ReasonField, type Props } from './ActionDialog';

const Namesakes = styled.p`
  margin: 10px 0 0;
  padding: 10px 12px;
  border: 1px solid ${({ theme }) => theme.colors.warning};
  border-radius: ${({ theme }) => theme.radius.md};
  color: ${({ theme }) => theme.colors.warning};
  font-size: 14px;
`;

/** An offering's window as the admin set it: '24 hours', '90 minutes'. */
const windowText = (minutes: number) =>
  minutes % 60 === 0 ? formatCount(minutes / 60, 'hour') : formatCount(minutes, 'minute');

export function ApproveDialog({ user, onClose, onDone }: Props) {
  const application = useQuery(
    async () =>
      (await rpc('admin_list_applications', { p_status: 'pending' })).find((a) => a.id === user.application_id),
    [user.application_id],
  );
  const defaults = useExchangeSettings();
  const [supply, setSupply] = useState('');
  const [price, setPrice] = useState('');
  const a = application.data;
  const d = defaults.data;
  return (
    <ActionDialog
      title="Approve token application"
      submitLabel="Approve and issue"
      onClose={onClose}
      onDone={onDone}
      run={() => {
        // Left empty, a field takes the exchange's default; typed, it must read as a number (12,50
        // would have become no value, and the default price issued without a word).
        const [s, p] = [supply, price].map((text) => (text.trim() ? Number(text) : null));
        if (Number.isNaN(s) || Number.isNaN(p))
          throw new Error('Write the total supply and the issue price as plain numbers, like 500000 and 12.50.');
        return rpc('admin_approve_application', { p_id: user.application_id, p_total_supply: s, p_issue_price: p });
      }}
      success={{
        title: 'Token Issued',
        description: `${a?.display_name ?? user.full_name}'s offering is open for bids${d ? ` for ${windowText(d.offering_window_minutes)}` : ''}.`,
      }}
    >
      {a ? (
        <div>
          <strong>{a.display_name}</strong>{' '}
          <Muted>
            · {a.category} · @{a.username}
          </Muted>
          {a.bio && <p style={{ margin: '6px 0' }}>{a.bio}</p>}
          {a.socials.map((s) => (
            <div key={s.platform}>
              <a href={s.url} target="_blank" rel="noreferrer noopener">
                {s.url}
              </a>
            </div>
          ))}
          <div data-testid="application-analysis" style={{ marginTop: 10 }}>
            {a.analysis ? (
              <SocialAnalysisView analysis={a.analysis} whose="the applicant's" />
            ) : (
              <Muted>No connected account: there is no automated analysis to review.</Muted>
            )}
          </div>
          {a.namesakes.length > 0 && (
            <Namesakes role="note" data-testid="namesakes">
              Already on the market under this name:{' '}
              {a.namesakes.map((n) => `${n.name} (@${n.username}${n.verified ? ', verified' : ''})`).join('; ')}. Check
              that the applicant is not passing for someone else.
            </Namesakes>
          )}
        </div>
      ) : (
        <Muted>Loading the application...</Muted>
      )}
      <TextField
        id="approve-supply"
        label="Total supply"
        hint={
          d &&
          `Default ${formatInteger(d.token_supply)}; ${d.token_founder_bps / 100}% to the person, the rest offered by batch auction.`
        }
        inputMode="numeric"
        placeholder={d ? String(d.token_supply) : ''}
        value={supply}
        onValue={setSupply}
      />
      <TextField
        id="approve-price"
        label="Issue price (USD)"
        hint={d && `Default ${formatPrice(d.token_issue_price)}: the lowest bid its offering takes.`}
        inputMode="decimal"
        placeholder={d ? d.token_issue_price.toFixed(2) : ''}
        value={price}
        onValue={setPrice}
      />
    </ActionDialog>
  );
}

export function RejectDialog({ user, onClose, onDone }: Props) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      title="Reject token application"
      submitLabel="Reject"
      destructive
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_reject_application', { p_id: user.application_id, p_reason: reason })}
      success={{
        title: 'Application Rejected',
        description: `@${user.username} sees your reason and may apply again.`,
      }}
    >
      <Muted>@{user.username} will see this reason on their profile.</Muted>
      <ReasonField id="reject-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}
