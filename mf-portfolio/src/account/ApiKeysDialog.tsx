import styled from 'styled-components';
import type { ApiKey } from '@repex/shared-ui/contracts';
import {
  Badge,
  Button,
  Dialog,
  DialogActions,
  ErrorState,
  Field,
  FormDialog,
  Muted,
  RecentSignInFields,
  RowList,
  Select,
  TextField,
  formatDate,
} from '@repex/shared-ui/ui';
import { NewKeyShown } from './NewKeyShown';
import { useApiKeys, type ApiKeysState } from './useApiKeys';

const EXPIRIES: [label: string, days: number | null][] = [
  ['In 30 days', 30],
  ['In 90 days', 90],
  ['In a year', 365],
  ['Never', null],
];

const Mono = styled.span`
  font-family: ${({ theme }) => theme.font.mono};
`;

/** Profile › Settings › API keys: the list, a new key (shown once), and revoking one. */
export function ApiKeysDialog({ onClose }: { onClose: () => void }) {
  const s = useApiKeys();
  if (s.made) return <NewKeyShown made={s.made} onDone={s.dismissMade} />;
  if (s.creating) return <NewKeyForm s={s} />;
  if (s.revoking)
    return (
      <FormDialog
        title="Revoke API Key"
        submitLabel="Revoke Key"
        busyLabel="Revoking..."
        destructive
        send={s.revoke}
        onClose={() => s.setRevoking(undefined)}
      >
        <p style={{ margin: 0 }}>
          Revoke &ldquo;{s.revoking.name}&rdquo; (<Mono>{s.revoking.prefix}…</Mono>)? Every program using it is refused
          from its next request. This cannot be undone.
        </p>
      </FormDialog>
    );
  const keys = s.keys.data;
  return (
    <Dialog title="API Keys" onClose={onClose}>
      <Muted>
        A key lets a trading bot read your account and, with the trade scope, place and cancel orders and alerts. A key
        can never move money or change your account.
      </Muted>
      {s.keys.error && !keys ? (
        <ErrorState title="Could not load your keys" message={s.keys.error.message} onRetry={s.keys.reload} />
      ) : !keys ? (
        <Muted role="status">Loading your keys...</Muted>
      ) : keys.length === 0 ? (
        <Muted>You have no API keys.</Muted>
      ) : (
        <RowList aria-label="API keys">
          {keys.map((k) => (
            <KeyRow key={k.id} k={k} onRevoke={() => s.setRevoking(k)} />
          ))}
        </RowList>
      )}
      <DialogActions>
        <Button $variant="outline" onClick={onClose}>
          Close
        </Button>
        <Button onClick={() => s.setCreating(true)}>Create Key</Button>
      </DialogActions>
    </Dialog>
  );
}

function KeyRow({ k, onRevoke }: { k: ApiKey; onRevoke: () => void }) {
  return (
    <li>
      <div>
        <strong>
          {k.name} <Badge $variant="default">{k.scopes.includes('trade') ? 'Read and trade' : 'Read only'}</Badge>{' '}
          {k.status !== 'active' && <Badge $variant="down">{k.status === 'revoked' ? 'Revoked' : 'Expired'}</Badge>}
        </strong>
        <small>
          <Mono>{k.prefix}…</Mono> · created {formatDate(k.created_at)} · last used{' '}
          {k.last_used_at ? formatDate(k.last_used_at) : 'never'}
        </small>
        <small>
          {k.status === 'revoked' && k.revoked_at
            ? `Revoked ${formatDate(k.revoked_at)}`
            : k.expires_at
              ? `${k.status === 'expired' ? 'Expired' : 'Expires'} ${formatDate(k.expires_at)}`
              : 'Never expires'}
          {' · '}
          {k.allowed_ips ? `only from ${k.allowed_ips.join(', ')}` : 'from any address'}
        </small>
      </div>
      {k.status === 'active' && (
        <Button $variant="outline" $size="sm" onClick={onRevoke} aria-label={`Revoke ${k.name}`}>
          Revoke
        </Button>
      )}
    </li>
  );
}

function NewKeyForm({ s }: { s: ApiKeysState }) {
  const { terms, setTerms } = s;
  return (
    <FormDialog
      title="New API Key"
      submitLabel="Create Key"
      busyLabel="Creating..."
      stayOpen
      send={s.create}
      onClose={() => s.setCreating(false)}
    >
      <TextField
        id="api-key-name"
        label="Name"
        hint="So you can tell it from your other keys, as “Market maker”."
        value={terms.name}
        onValue={(name) => setTerms({ ...terms, name })}
        maxLength={60}
        required
      />
      <Field
        label="What it may do"
        htmlFor="api-key-scope"
        hint="Trading places and cancels orders and price alerts. No key can move money or change your account."
      >
        <Select
          id="api-key-scope"
          value={terms.trade ? 'trade' : 'read'}
          onChange={(e) => setTerms({ ...terms, trade: e.target.value === 'trade' })}
        >
          <option value="read">Read only</option>
          <option value="trade">Read and trade</option>
        </Select>
      </Field>
      <Field label="Expires" htmlFor="api-key-expiry">
        <Select
          id="api-key-expiry"
          value={String(terms.days)}
          onChange={(e) => setTerms({ ...terms, days: e.target.value === 'null' ? null : Number(e.target.value) })}
        >
          {EXPIRIES.map(([label, days]) => (
            <option key={label} value={String(days)}>
              {label}
            </option>
          ))}
        </Select>
      </Field>
      <TextField
        id="api-key-addresses"
        label="Only from these addresses (optional)"
        hint="IP addresses or networks, separated by commas, as 203.0.113.7, 2001:db8::/32. Blank: any address."
        value={terms.addresses}
        onValue={(addresses) => setTerms({ ...terms, addresses })}
      />
      <RecentSignInFields id="api-key" proof={s.proof} />
    </FormDialog>
  );
}
