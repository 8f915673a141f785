import { AppChoice } from './AppChoice';
import { TextField } from './Dialog';

/**
 * The recent sign-in the database asked for (the platform's useRecentSignIn): a code from an
 * authenticator app, or the password. Nothing until it is asked for. `id` prefixes the fields' ids.
 */
export function RecentSignInFields({
  id,
  proof,
}: {
  id: string;
  proof: {
    password: string | undefined;
    setPassword: (v: string) => void;
    appCode: string | undefined;
    setAppCode: (v: string) => void;
    apps: { id: string; name: string }[];
    app: string | undefined;
    setApp: (v: string) => void;
  };
}) {
  return (
    <>
      {proof.appCode !== undefined && (
        <AppChoice id={`${id}-app`} apps={proof.apps} value={proof.app} onChange={proof.setApp} />
      )}
      {proof.appCode !== undefined && (
        <TextField
          id={`${id}-app-code`}
          label="Code from your authenticator app"
          inputMode="numeric"
          autoComplete="one-time-code"
          autoFocus
          value={proof.appCode}
          onValue={proof.setAppCode}
          required
        />
      )}
      {proof.password !== undefined && (
        <TextField
          id={`${id}-password`}
          label="Your password"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={proof.password}
          onValue={proof.setPassword}
          required
        />
      )}
    </>
  );
}
