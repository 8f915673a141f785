import { useState } from 'react';
import styled from 'styled-components';
import { toast, useQuery, useTableChanges } from '@repex/shared-ui/platform';
import { loadSocialAccounts, platformLabel } from '../social/data';
import { applyForToken, loadCategories, loadLatestApplication } from '../account/account';
import {
  Badge,
  Button,
  Card,
  CardTitle,
  Field,
  TextField,
  Muted,
  Select,
  Textarea,
  formatDate,
  formatInteger,
  FormDialog,
} from '@repex/shared-ui/ui';

const Row = styled.div`
  display: flex;
  justify-content: space-between;
  align-items: center;
  gap: 12px;
  flex-wrap: wrap;
  p {
    margin: 4px 0 0;
  }
`;

/**
 * 'Get your token': the person applies; an admin approves (the token is issued at once) or
 * rejects with a reason, after which they may apply again. Decisions arrive live.
 */
export function TokenApplication({
  userId,
  fullName,
  onIssued,
}: {
  userId: string;
  fullName: string;
  onIssued: () => void;
}) {
  const latest = useQuery(() => loadLatestApplication(userId), [userId]);
  const [applying, setApplying] = useState(false);
  useTableChanges(
    'token_applications',
    `user_id=eq.${userId}`,
    (row) => {
      latest.reload();
      if (row.status === 'approved') {
        toast({
          title: 'Your Token Is Live!',
          description: 'Its offering is open for bids; trading opens when it closes.',
        });
        onIssued();
      } else if (row.status === 'rejected') {
        toast({ title: 'Application Not Approved', description: String(row.reason ?? ''), variant: 'destructive' });
      }
    },
    100,
  );

  const a = latest.data;
  return (
    <Card data-testid="token-application">
      {a?.status === 'pending' ? (
        <Row>
          <div>
            <CardTitle>Your token application is under review</CardTitle>
            <Muted>
              {a.display_name} · {a.category} · sent {formatDate(a.created_at)}. An administrator will approve it or
              tell you why not.
            </Muted>
          </div>
          <Badge $variant="secondary">Pending review</Badge>
        </Row>
      ) : (
        <Row>
          <div>
            <CardTitle>Get your token</CardTitle>
            {a?.status === 'rejected' ? (
              <p data-testid="application-rejected">
                Your last application was not approved: <strong>{a.reason}</strong> You may apply again.
              </p>
            ) : (
              <Muted>
                Apply for your own reputation token. Connect your social accounts first: the administrator reviews their
                automated analysis. Once approved, your token is listed and its first tokens are sold by auction;
                trading opens when it closes.
              </Muted>
            )}
          </div>
          <Button onClick={() => setApplying(true)} disabled={latest.data === undefined}>
            Get your token
          </Button>
        </Row>
      )}
      {applying && (
        <ApplyDialog userId={userId} fullName={fullName} onClose={() => setApplying(false)} onSent={latest.reload} />
      )}
    </Card>
  );
}

function ApplyDialog({
  userId,
  fullName,
  onClose,
  onSent,
}: {
  userId: string;
  fullName: string;
  onClose: () => void;
  onSent: () => void;
}) {
  const categories = useQuery(loadCategories, []);
  const [name, setName] = useState(fullName);
  const [category, setCategory] = useState('');
  const [bio, setBio] = useState('');
  const accounts = useQuery(() => loadSocialAccounts(userId), [userId]);
  const connected = (accounts.data ?? []).filter((a) => a.status === 'connected');

  const send = async () => {
    const refused = await applyForToken({ name, category, bio });
    if (refused) return refused;
    toast({ title: 'Application Sent', description: 'An administrator will review it shortly.' });
    onSent();
    return null;
  };

  return (
    <FormDialog
      title="Get your token"
      formLabel="Token application"
      submitLabel="Apply"
      busyLabel="Sending..."
      send={send}
      onClose={onClose}
    >
      <TextField id="apply-name" label="Display name" value={name} onValue={setName} required maxLength={80} />
      <Field label="Category" htmlFor="apply-category">
        <Select id="apply-category" value={category} onChange={(e) => setCategory(e.target.value)} required>
          <option value="" disabled>
            Choose a category
          </option>
          {categories.data?.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Bio" htmlFor="apply-bio" hint="Up to 500 characters.">
        <Textarea id="apply-bio" value={bio} onChange={(e) => setBio(e.target.value)} maxLength={500} />
      </Field>
      <div data-testid="apply-accounts">
        <strong style={{ fontSize: 13 }}>Connected accounts</strong>
        {connected.length ? (
          <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
            {connected.map((a) => (
              <li key={a.platform}>
                {platformLabel(a.platform)} @{a.handle} · {formatInteger(a.followers ?? 0)} followers
              </li>
            ))}
          </ul>
        ) : (
          <Muted as="p" style={{ margin: '4px 0 0' }}>
            None yet.
          </Muted>
        )}
        <Muted as="p" style={{ margin: '4px 0 0', fontSize: 13 }}>
          Your application lists the accounts connected in Settings, and the administrator sees their automated
          analysis.
        </Muted>
      </div>
    </FormDialog>
  );
}
