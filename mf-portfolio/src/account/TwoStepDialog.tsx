import { useState } from 'react';
import styled from 'styled-components';
import {
  authenticatorApps,
  enterAppCode,
  signInAgain,
  toast,
  useQuery,
  type AuthenticatorApp,
} from '@repex/shared-ui/platform';
import { enrollApp, loadAccount, removeApp } from './account';
import {
  Button,
  Dialog,
  DialogActions,
  ErrorState,
  FormDialog,
  Muted,
  RowList,
  TextField,
  formatDate,
} from '@repex/shared-ui/ui';

const Qr = styled.img`
  display: block;
  width: 180px;
  height: 180px;
  margin: 0 auto;
  border-radius: 8px;
  background: #fff;
`;
const Key = styled.code`
  display: block;
  padding: 8px 10px;
  border-radius: 8px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.bg};
  font-size: 15px;
  letter-spacing: 0.04em;
  overflow-wrap: anywhere;
  user-select: all;
`;

/** A code field, as every step of these dialogs asks for one. */
function CodeField({ value, onValue }: { value: string; onValue: (v: string) => void }) {
  return (
    <TextField
      id="two-step-code"
      label="Code from the app"
      inputMode="numeric"
      autoComplete="one-time-code"
      value={value}
      onValue={onValue}
      required
    />
  );
}

/** The app's secret in groups of four, as people copy it by eye. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/** The names apps are added under, told apart when signing in: the first one free is taken. */
const APP_NAMES = ['Authenticator app', 'Backup app'];

/**
 * A new app: its secret as a QR code and as a key to type, then the first code it shows, which
 * turns it on (and signs out the other sessions that have not entered a code).
 */
function AddAppForm({
  title,
  name,
  submitLabel,
  onAdded,
  onClose,
}: {
  title: string;
  name: string;
  submitLabel: string;
  onAdded: () => void;
  onClose: () => void;
}) {
  // Turning it on needs a recent sign-in: past it, the password first, then the key.
  const [password, setPassword] = useState<string>();
  const enrolment = useQuery(async () => {
    const { data, error } = await enrollApp(name);
    if (error?.code === 'reauthentication_needed') setPassword('');
    if (error) throw error;
    return data;
  }, [name]);
  const [code, setCode] = useState('');
  const send = async () => {
    if (password !== undefined) {
      const refused = await signInAgain(password, 'turn on two-step verification');
      if (refused) return refused;
      setPassword(undefined);
      enrolment.reload();
      return null;
    }
    if (!enrolment.data) return enrolment.error?.message ?? 'The key is still being made. Try again in a moment.';
    const refused = await enterAppCode(enrolment.data.id, code);
    if (refused) return refused;
    onAdded();
    return null;
  };
  const totp = enrolment.data?.totp;
  if (password !== undefined) {
    return (
      <FormDialog title={title} submitLabel="Continue" busyLabel="Signing in..." stayOpen send={send} onClose={onClose}>
        <Muted role="status">For your security, enter your password to turn on two-step verification.</Muted>
        <TextField
          id="two-step-password"
          label="Your password"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={password}
          onValue={setPassword}
          required
        />
      </FormDialog>
    );
  }
  return (
    <FormDialog title={title} submitLabel={submitLabel} busyLabel="Checking..." send={send} onClose={onClose}>
      <Muted>
        1. Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password...).
      </Muted>
      {totp ? (
        <>
          <Qr src={totp.qr_code} alt="QR code to add RepX to an authenticator app" />
          <Muted>Or type this key into the app:</Muted>
          <Key aria-label="Key for the authenticator app">{grouped(totp.secret)}</Key>
        </>
      ) : (
        <Muted role="status">{enrolment.error ? enrolment.error.message : 'Making your key...'}</Muted>
      )}
      <Muted>2. Enter the code the app shows for RepX.</Muted>
      <CodeField value={code} onValue={setCode} />
    </FormDialog>
  );
}

/** Turn On: the first app; signing in then asks for its code. */
export function TurnOnDialog({ onClose }: { onClose: () => void }) {
  return (
    <AddAppForm
      title="Turn On Two-Step Verification"
      name={APP_NAMES[0]!}
      submitLabel="Turn On"
      onAdded={() =>
        toast({
          title: 'Two-Step Verification On',
          description: 'Signing in now asks for a code from your authenticator app.',
        })
      }
      onClose={onClose}
    />
  );
}

/**
 * A backup app (another phone, a password manager), to sign in with when the phone is lost: a
 * code from the app already on first (a browser left signed in cannot add one), then the new app.
 */
function AddBackupDialog({ keep, onDone }: { keep: AuthenticatorApp; onDone: () => void }) {
  const [proven, setProven] = useState(false);
  const [code, setCode] = useState('');
  if (proven)
    return (
      <AddAppForm
        title="Add a Backup App"
        name={APP_NAMES.find((n) => n !== keep.name)!}
        submitLabel="Add App"
        onAdded={() =>
          toast({ title: 'Backup App Added', description: 'Signing in now accepts a code from either app.' })
        }
        onClose={onDone}
      />
    );
  return (
    <FormDialog
      title="Add a Backup App"
      submitLabel="Continue"
      busyLabel="Checking..."
      stayOpen
      send={async () => {
        const refused = await enterAppCode(keep.id, code);
        if (!refused) setProven(true);
        return refused;
      }}
      onClose={onDone}
    >
      <Muted>
        A second authenticator app, on another phone or in a password manager, lets you sign in if you lose this one.
      </Muted>
      <Muted>First, enter the code from &ldquo;{keep.name}&rdquo;, the app you have now.</Muted>
      <CodeField value={code} onValue={setCode} />
    </FormDialog>
  );
}

/**
 * Removes an app, with a code entered just before: from the app that stays (a lost phone cannot
 * give one), and whoever signed in with the removed app's codes is signed out. Removing the last
 * app turns the verification off: signing in then asks for the password alone.
 */
function RemoveAppDialog({
  app,
  keep,
  onDone,
}: {
  app: AuthenticatorApp;
  keep: AuthenticatorApp | undefined;
  onDone: () => void;
}) {
  const [code, setCode] = useState('');
  const send = async () => {
    const wrongCode = await enterAppCode((keep ?? app).id, code);
    if (wrongCode) return wrongCode;
    const refused = await removeApp(app.id);
    if (refused) return refused;
    toast(
      keep
        ? { title: 'Authenticator App Removed', description: `Two-step verification stays on with “${keep.name}”.` }
        : { title: 'Two-Step Verification Off', description: 'Signing in now asks for your password only.' },
    );
    return null;
  };
  return (
    <FormDialog
      title={keep ? 'Remove an Authenticator App' : 'Turn Off Two-Step Verification'}
      submitLabel={keep ? 'Remove' : 'Turn Off'}
      busyLabel={keep ? 'Removing...' : 'Turning Off...'}
      destructive
      send={send}
      onClose={onDone}
    >
      <Muted>
        {keep
          ? `To remove “${app.name}”, enter the code from “${keep.name}”, the app you keep. Whoever is signed in with codes from “${app.name}” will be signed out.`
          : 'Enter the code your authenticator app shows for RepX. Signing in will then ask for your password only.'}
      </Muted>
      <CodeField value={code} onValue={setCode} />
    </FormDialog>
  );
}

/** Two-step verification that is on: the apps (an app and perhaps its backup), each removable; a backup added. */
export function AppsDialog({ onClose }: { onClose: () => void }) {
  const apps = useQuery(async () => authenticatorApps((await loadAccount()).factors), []);
  const [step, setStep] = useState<'add' | AuthenticatorApp | null>(null);
  const list = apps.data ?? [];
  const back = () => {
    setStep(null);
    apps.reload();
  };

  if (step === 'add' && list[0]) return <AddBackupDialog keep={list[0]} onDone={back} />;
  if (step && step !== 'add')
    return (
      <RemoveAppDialog app={step} keep={list.find((a) => a.id !== step.id)} onDone={list.length > 1 ? back : onClose} />
    );
  return (
    <Dialog title="Two-Step Verification" onClose={onClose}>
      {apps.error && !apps.data ? (
        <ErrorState title="Could not load your apps" message={apps.error.message} onRetry={apps.reload} />
      ) : !apps.data ? (
        <Muted role="status">Loading your apps...</Muted>
      ) : (
        <RowList aria-label="Authenticator apps">
          {list.map((app) => (
            <li key={app.id}>
              <div>
                <strong>{app.name}</strong>
                <small>Added {formatDate(app.addedAt)}</small>
              </div>
              <Button $variant="outline" $size="sm" onClick={() => setStep(app)}>
                {list.length > 1 ? 'Remove' : 'Turn off'}
              </Button>
            </li>
          ))}
        </RowList>
      )}
      {list.length === 1 && (
        <Muted>
          Signing in asks for a code from this app. Add a backup app, on another phone or in a password manager, to sign
          in with if you lose it.
        </Muted>
      )}
      {list.length > 1 && <Muted>Signing in accepts a code from either app.</Muted>}
      <DialogActions>
        <Button $variant="outline" onClick={onClose}>
          Close
        </Button>
        {list.length === 1 && <Button onClick={() => setStep('add')}>Add Backup App</Button>}
      </DialogActions>
    </Dialog>
  );
}
