import { useState } from 'react';
import { toast, useQuery } from '@repex/shared-ui/platform';
import { endOtherSessions, endSession, loadSessions, type Session } from './account';
import {
  Badge,
  Button,
  Dialog,
  DialogActions,
  ErrorState,
  Muted,
  deviceName,
  formatDate,
  formatTime,
  RowList,
} from '@repex/shared-ui/ui';

const when = (iso: string) => `${formatDate(iso)}, ${formatTime(iso)}`;

/** Where the user is signed in: each session's browser, address and times; one, or every other, signed out. */
export function SessionsDialog({ onClose }: { onClose: () => void }) {
  const sessions = useQuery(loadSessions, []);
  const [busy, setBusy] = useState(false);
  const others = sessions.data?.filter((s) => !s.current) ?? [];

  const endOne = async (s: Session) => {
    setBusy(true);
    const refused = await endSession(s.id);
    setBusy(false);
    toast(
      refused
        ? { title: 'Sign out Failed', description: refused, variant: 'destructive' }
        : { title: 'Session Signed Out', description: `${deviceName(s.user_agent)} is no longer signed in.` },
    );
    sessions.reload();
  };
  const endOthers = async () => {
    setBusy(true);
    const refused = await endOtherSessions();
    setBusy(false);
    toast(
      refused !== null
        ? { title: 'Sign out Failed', description: refused || 'Something went wrong', variant: 'destructive' }
        : { title: 'Other Sessions Signed Out', description: 'Only this browser is still signed in.' },
    );
    sessions.reload();
  };

  return (
    <Dialog title="Where You're Signed In" onClose={onClose}>
      {sessions.error && !sessions.data ? (
        <ErrorState title="Could not load your sessions" message={sessions.error.message} onRetry={sessions.reload} />
      ) : !sessions.data ? (
        <Muted role="status">Loading your sessions...</Muted>
      ) : (
        <RowList aria-label="Sessions">
          {sessions.data.map((s) => (
            <li key={s.id}>
              <div>
                <strong>
                  {deviceName(s.user_agent)} {s.current && <Badge $variant="up">This browser</Badge>}
                </strong>
                <small>
                  {s.ip ?? 'Unknown address'} · signed in {when(s.signed_in_at)}
                </small>
                <small>Last active {when(s.last_seen_at)}</small>
              </div>
              {!s.current && (
                <Button $variant="outline" $size="sm" disabled={busy} onClick={() => void endOne(s)}>
                  Sign out
                </Button>
              )}
            </li>
          ))}
        </RowList>
      )}
      {sessions.data && others.length === 0 && <Muted>You are signed in nowhere else.</Muted>}
      <DialogActions>
        <Button $variant="outline" onClick={onClose}>
          Close
        </Button>
        <Button $variant="destructive" disabled={busy || others.length === 0} onClick={() => void endOthers()}>
          Sign out all others
        </Button>
      </DialogActions>
    </Dialog>
  );
}
