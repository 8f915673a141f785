import { toast, useQuery } from '@repex/shared-ui/platform';
import { Dialog, ErrorState, Muted, RowList, Select } from '@repex/shared-ui/ui';
import { loadNoticeChoices, setNoticeChoice, type NoticeChoice } from './notices';

const CHANNELS = [
  ['app', 'In the app'],
  ['mail', 'Also by mail'],
  ['off', 'Off'],
] as const;

/** How the user is told each kind of notice; security notices cannot be turned off. */
export function NotificationsDialog({ onClose }: { onClose: () => void }) {
  const choices = useQuery(loadNoticeChoices, []);
  const choose = async (k: NoticeChoice, channel: string) => {
    const refused = await setNoticeChoice(k.kind, channel);
    if (refused) toast({ title: 'Not Saved', description: refused, variant: 'destructive' });
    choices.reload();
  };
  return (
    <Dialog title="Notifications" onClose={onClose}>
      <Muted>Every notice is kept under the bell. Choose which also come by mail, and which not at all.</Muted>
      {choices.error && !choices.data ? (
        <ErrorState title="Could not load your choices" message={choices.error.message} onRetry={choices.reload} />
      ) : !choices.data ? (
        <Muted role="status">Loading…</Muted>
      ) : (
        <RowList aria-label="Notification choices">
          {choices.data.map((k) => (
            <li key={k.kind}>
              <div>
                <strong>{k.label}</strong>
                <small>{k.always_on ? `${k.description} Always on, in the app and by mail.` : k.description}</small>
              </div>
              <Select
                aria-label={k.label}
                style={{ width: 140, flexShrink: 0 }}
                value={k.channel}
                disabled={k.always_on}
                onChange={(e) => void choose(k, e.target.value)}
              >
                {CHANNELS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </Select>
            </li>
          ))}
        </RowList>
      )}
    </Dialog>
  );
}
