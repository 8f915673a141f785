import { useState } from 'react';
import styled from 'styled-components';
import { appCodeMessage, supabase, toast, useQuery } from '@repex/shared-ui/platform';
import { FormDialog, Muted, TextField } from '@repex/shared-ui/ui';

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

/** A code field, as every step of the dialog asks for one. */
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

/**
 * Turn On: a new secret for the authenticator app, as a QR code and as a key to type, then the
 * first code the app shows, which turns the verification on (and signs out the other sessions
 * that have not entered a code).
 */
export function TurnOnDialog({ onClose }: { onClose: () => void }) {
  const enrolment = useQuery(async () => {
    const { data, error } = await supabase().auth.mfa.enroll({
      factorType: 'totp',
      friendlyName: 'Authenticator app',
      issuer: 'RepX',
    });
    if (error) throw error;
    return data as { id: string; totp: { qr_code: string; secret: string } };
  }, []);
  const [code, setCode] = useState('');
  const send = async () => {
    if (!enrolment.data) return enrolment.error?.message ?? 'The key is still being made. Try again in a moment.';
    const { error } = await supabase().auth.mfa.challengeAndVerify({
      factorId: enrolment.data.id,
      code: code.replace(/\s/g, ''),
    });
    if (error) return appCodeMessage(error.message);
    toast({
      title: 'Two-Step Verification On',
      description: 'Signing in now asks for a code from your authenticator app.',
    });
    return null;
  };
  const totp = enrolment.data?.totp;
  return (
    <FormDialog
      title="Turn On Two-Step Verification"
      submitLabel="Turn On"
      busyLabel="Checking..."
      send={send}
      onClose={onClose}
    >
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

/**
 * Turn Off: a code from the app first (a browser left signed in cannot turn it off), then the app
 * is removed and signing in asks for the password alone.
 */
export function TurnOffDialog({ factorId, onClose }: { factorId: string; onClose: () => void }) {
  const [code, setCode] = useState('');
  const send = async () => {
    const mfa = supabase().auth.mfa;
    const verified = await mfa.challengeAndVerify({ factorId, code: code.replace(/\s/g, '') });
    if (verified.error) return appCodeMessage(verified.error.message);
    const { error } = await mfa.unenroll({ factorId });
    if (error) return error.message;
    // The session's user and token no longer carry the app.
    await supabase().auth.refreshSession();
    toast({ title: 'Two-Step Verification Off', description: 'Signing in now asks for your password only.' });
    return null;
  };
  return (
    <FormDialog
      title="Turn Off Two-Step Verification"
      submitLabel="Turn Off"
      busyLabel="Turning Off..."
      destructive
      send={send}
      onClose={onClose}
    >
      <Muted>
        Enter the code your authenticator app shows for RepX. Signing in will then ask for your password only.
      </Muted>
      <CodeField value={code} onValue={setCode} />
    </FormDialog>
  );
}
