import { useState } from 'react';
import { toast, useQuery, useRecentSignIn } from '@repex/shared-ui/platform';
import type { ApiKey, NewApiKey } from '@repex/shared-ui/contracts';
import { createApiKey, loadApiKeys, revokeApiKey, type NewKeyTerms } from './apiKeys';

const FRESH: NewKeyTerms = { name: '', trade: false, days: 90, addresses: '' };

/**
 * Profile › Settings › API keys: the list, the new key's terms and the proof of a recent sign-in
 * the database asks for before making one, the key shown once, and revoking.
 */
export function useApiKeys() {
  const keys = useQuery(loadApiKeys, []);
  const [terms, setTerms] = useState<NewKeyTerms>(FRESH);
  const [creating, setCreating] = useState(false);
  const [made, setMade] = useState<NewApiKey & { name: string }>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const proof = useRecentSignIn('create an API key');

  /** Null when the key was made (and is now shown), else the refusal in words. */
  const create = async (): Promise<string | null> => {
    const unproved = await proof.prove();
    if (unproved) return unproved;
    const { data, error } = await createApiKey(terms);
    if (error) {
      if (error.hint === 'reauthenticate') await proof.ask();
      return error.message;
    }
    setMade({ ...data, name: terms.name.trim() });
    setCreating(false);
    setTerms(FRESH);
    keys.reload();
    return null;
  };

  const revoke = async (): Promise<string | null> => {
    if (!revoking) return null;
    const refused = await revokeApiKey(revoking.id);
    if (refused) return refused;
    toast({ title: 'API Key Revoked', description: `"${revoking.name}" no longer works.` });
    setRevoking(undefined);
    keys.reload();
    return null;
  };

  return {
    keys,
    terms,
    setTerms,
    creating,
    setCreating,
    made,
    dismissMade: () => setMade(undefined),
    revoking,
    setRevoking,
    proof,
    create,
    revoke,
  };
}

export type ApiKeysState = ReturnType<typeof useApiKeys>;
