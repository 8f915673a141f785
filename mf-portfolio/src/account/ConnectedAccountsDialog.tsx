import { useState } from 'react';
import styled from 'styled-components';
import { toast } from '@repex/shared-ui/platform';
import { Button, Dialog, DialogActions, Input, Muted, formatDate, formatInteger } from '@repex/shared-ui/ui';
import {
  PLATFORMS,
  checkConnection,
  disconnect,
  refreshAccounts,
  startConnection,
  type PlatformKey,
  type SocialAccount,
} from '../social/data';
import { useSocial } from '../social/useSocial';

const Rows = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: flex;
  flex-direction: column;
  gap: 12px;
`;
const Row = styled.li`
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.md};
  padding: 12px;
  display: flex;
  flex-direction: column;
  gap: 8px;
  overflow-wrap: anywhere;
  header {
    display: flex;
    justify-content: space-between;
    align-items: center;
    gap: 8px;
    flex-wrap: wrap;
  }
`;
const Phrase = styled.code`
  display: inline-block;
  padding: 4px 8px;
  border-radius: ${({ theme }) => theme.radius.sm};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  font-size: 15px;
  user-select: all;
`;
const Inline = styled.form`
  display: flex;
  gap: 8px;
  flex-wrap: wrap;
  input {
    flex: 1 1 160px;
  }
`;
const Problem = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.down};
`;

/** Tells the user what a call answered: its refusal in the server's words, or nothing. */
const told = (refused: string | null, title: string) => {
  if (refused) toast({ title, description: refused, variant: 'destructive' });
  return !refused;
};

/**
 * Profile › Settings › Connected accounts: each platform connected, being proven, or not; Connect
 * by a one-time phrase in the account's bio, Disconnect (everything read from it is deleted), and
 * Refresh now. The worker's answers arrive live.
 */
export function ConnectedAccountsDialog({ userId, onClose }: { userId: string; onClose: () => void }) {
  const { accounts, reload } = useSocial(userId);
  const byPlatform = new Map((accounts.data ?? []).map((a) => [a.platform, a]));
  const connected = (accounts.data ?? []).filter((a) => a.status === 'connected').length;
  return (
    <Dialog title="Connected Accounts" onClose={onClose}>
      <Muted as="p" style={{ margin: 0 }}>
        Connect the accounts you post from: RepX reads their public profile and recent posts for an automated reputation
        analysis. It keeps only figures and the few posts it cites, and nobody but you and the exchange&apos;s admins
        sees them.
      </Muted>
      <Rows aria-label="Platforms">
        {PLATFORMS.map((p) => (
          <PlatformRow
            key={p.key}
            platform={p.key}
            label={p.label}
            account={byPlatform.get(p.key)}
            onChanged={reload}
          />
        ))}
      </Rows>
      <DialogActions>
        {connected > 0 && (
          <Button
            type="button"
            $variant="outline"
            onClick={async () => {
              if (told(await refreshAccounts(), 'Not Refreshed'))
                toast({ title: 'Refreshing', description: 'Your accounts are being read again.' });
            }}
          >
            Refresh now
          </Button>
        )}
        <Button type="button" onClick={onClose} data-dialog-close>
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function PlatformRow({
  platform,
  label,
  account: a,
  onChanged,
}: {
  platform: PlatformKey;
  label: string;
  account: SocialAccount | undefined;
  onChanged: () => void;
}) {
  const [handle, setHandle] = useState('');
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const act = async (run: () => Promise<boolean>) => {
    setBusy(true);
    try {
      if (await run()) onChanged();
    } finally {
      setBusy(false);
    }
  };
  const start = () =>
    act(async () => {
      const answer = await startConnection(platform, handle);
      if ('refused' in answer) return told(answer.refused, 'Not Started');
      setEditing(false);
      return true;
    });

  const askHandle = (
    <Inline
      aria-label={`Connect ${label}`}
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <Input
        id={`connect-${platform}`}
        aria-label={`${label} handle`}
        placeholder="@handle"
        value={handle}
        onChange={(e) => setHandle(e.target.value)}
        required
      />
      <Button type="submit" $size="sm" disabled={busy}>
        Get phrase
      </Button>
    </Inline>
  );

  return (
    <Row data-testid="social-row" data-platform={platform}>
      <header>
        <strong>{label}</strong>
        {a?.status === 'connected' && (
          <Button
            type="button"
            $size="sm"
            $variant="outline"
            disabled={busy}
            onClick={() => act(async () => told(await disconnect(platform), 'Not Disconnected'))}
          >
            Disconnect
          </Button>
        )}
        {!a && !editing && (
          <Button type="button" $size="sm" onClick={() => setEditing(true)}>
            Connect
          </Button>
        )}
      </header>
      {a?.status === 'connected' && (
        <span data-testid="social-connected">
          @{a.handle} · {formatInteger(a.followers ?? 0)} followers · {(a.engagement_rate ?? 0).toFixed(2)}% engagement
          {a.read_at && ` · read ${formatDate(a.read_at)}`}
        </span>
      )}
      {(a?.status === 'proving' || a?.status === 'failed') && !editing && (
        <>
          {a.status === 'failed' && <Problem role="alert">{a.message}</Problem>}
          <span>
            Put this phrase in the bio of <strong>@{a.handle}</strong>, then check:
          </span>
          <div>
            <Phrase data-testid="social-phrase">{a.phrase}</Phrase>
          </div>
          <div style={{ display: 'flex', gap: 8, flexWrap: 'wrap' }}>
            <Button
              type="button"
              $size="sm"
              disabled={busy}
              onClick={() => act(async () => told(await checkConnection(platform), 'Not Checked'))}
            >
              {a.status === 'failed' ? 'Check again' : 'Check'}
            </Button>
            <Button type="button" $size="sm" $variant="ghost" onClick={() => setEditing(true)}>
              Another handle
            </Button>
          </div>
        </>
      )}
      {a?.status === 'checking' && <Muted role="status">Checking the bio of @{a.handle}...</Muted>}
      {editing && askHandle}
    </Row>
  );
}
