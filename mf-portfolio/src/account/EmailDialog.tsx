import { useState } from 'react';
import { codeMessage, toast } from '@repex/shared-ui/platform';
import { askEmailChange, confirmEmailChange } from './account';
import { Button, FormDialog, Muted, TextField } from '@repex/shared-ui/ui';

/** The email asked for, and the password that asked (kept to send a new code; absent for a change asked earlier). */
interface Asked {
  email: string;
  password?: string;
}

/** Asks the auth server to mail a code to `email`; null when sent, else the refusal in words. */
async function askForCode(email: string, password: string, current: string | undefined): Promise<string | null> {
  if (email.toLowerCase() === current?.toLowerCase()) return 'That is already your email.';
  const refused = await askEmailChange(email, password);
  return refused === 'Unable to validate email address: invalid format' ? 'Enter a valid email address.' : refused;
}

/**
 * Change Email: the new address and the current password, then the code mailed to the new address
 * (the account moves only then, so a typo cannot take its recovery mail). A change asked earlier
 * and not confirmed opens at the code.
 */
export function EmailDialog({
  current,
  pending,
  onClose,
}: {
  current: string | undefined;
  pending: string | undefined;
  onClose: () => void;
}) {
  const [asked, setAsked] = useState<Asked | undefined>(pending ? { email: pending } : undefined);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');

  const sent = (to: string) => toast({ title: 'Check Your Email', description: `A code is on its way to ${to}.` });

  if (!asked) {
    const send = async () => {
      const to = email.trim();
      const refused = await askForCode(to, password, current);
      if (refused) return refused;
      sent(to);
      setAsked({ email: to, password });
      return null;
    };
    return (
      <FormDialog
        key="ask"
        title="Change Email"
        submitLabel="Send Code"
        busyLabel="Sending..."
        stayOpen
        send={send}
        onClose={onClose}
      >
        <Muted>
          You sign in with {current}. We will send a code to the new address; your email changes when you enter it.
        </Muted>
        <TextField
          id="email-new"
          label="New email"
          type="email"
          autoComplete="email"
          value={email}
          onValue={setEmail}
          required
        />
        <TextField
          id="email-password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={password}
          onValue={setPassword}
          required
        />
      </FormDialog>
    );
  }

  const confirm = async () => {
    const refused = await confirmEmailChange(asked.email, code.trim());
    if (refused) return codeMessage(refused);
    toast({ title: 'Email Changed', description: `You now sign in with ${asked.email}.` });
    return null;
  };
  const sendAgain = async () => {
    const refused = await askForCode(asked.email, asked.password ?? '', current);
    if (refused) toast({ title: 'Could Not Send Code', description: refused, variant: 'destructive' });
    else sent(asked.email);
  };
  return (
    <FormDialog
      key="confirm"
      title="Change Email"
      submitLabel="Confirm Email"
      busyLabel="Confirming..."
      send={confirm}
      onClose={onClose}
    >
      <Muted style={{ overflowWrap: 'anywhere' }}>Enter the code we sent to {asked.email}.</Muted>
      <TextField
        id="email-code"
        label="Code"
        inputMode="numeric"
        autoComplete="one-time-code"
        value={code}
        onValue={setCode}
        autoFocus
        required
      />
      <div style={{ display: 'flex', justifyContent: 'space-between', flexWrap: 'wrap', gap: 8 }}>
        {asked.password !== undefined && (
          <Button type="button" $variant="link" onClick={() => void sendAgain()}>
            Send a new code
          </Button>
        )}
        <Button type="button" $variant="link" onClick={() => setAsked(undefined)}>
          Use another email
        </Button>
      </div>
    </FormDialog>
  );
}
