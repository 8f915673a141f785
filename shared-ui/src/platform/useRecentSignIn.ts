import { useState } from 'react';
import { authenticatorApps, enterAppCode, signInAgain, type AuthenticatorApp } from './secondStep';
import { supabase } from './supabase';

/**
 * The proof of a recent sign-in the database asks for before money leaves or an API key is made
 * (its refusal's hint is 'reauthenticate'): a code from the authenticator app where one is on,
 * which renews this session's proof without a new sign-in, or else the password. `ask` shows the
 * field; `prove` gives what was typed, if anything was asked, before the call is sent again.
 */
export function useRecentSignIn(purpose: string) {
  const [password, setPassword] = useState<string>();
  const [appCode, setAppCode] = useState<string>();
  const [apps, setApps] = useState<AuthenticatorApp[]>([]);
  const [app, setApp] = useState<string>();

  /** Null when no proof was asked for or it was accepted; else the refusal in words. */
  const prove = async (): Promise<string | null> => {
    if (password !== undefined) {
      const refused = await signInAgain(password, purpose);
      if (refused) return refused;
      setPassword(undefined);
    }
    if (appCode !== undefined) {
      if (!app) return `Two-step verification is no longer on: close this and ${purpose} again.`;
      const refused = await enterAppCode(app, appCode);
      if (refused) return refused;
      setAppCode(undefined);
    }
    return null;
  };

  const ask = async () => {
    const on = authenticatorApps((await supabase().auth.getSession()).data.session?.user.factors);
    setApps(on);
    setApp(on[0]?.id);
    if (on.length) setAppCode('');
    else setPassword('');
  };

  return { password, setPassword, appCode, setAppCode, apps, app, setApp, prove, ask };
}

export type RecentSignIn = ReturnType<typeof useRecentSignIn>;
