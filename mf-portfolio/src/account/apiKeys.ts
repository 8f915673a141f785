import { refusal, supabase, unwrap } from '@repex/shared-ui/platform';

/**
 * The account's API keys (supabase/schemas/api_keys.sql; docs/api.md): listed without the key,
 * made after a recent sign-in and shown once, revoked at once.
 */
export const loadApiKeys = async () => unwrap(await supabase().rpc('list_api_keys'));

export interface NewKeyTerms {
  name: string;
  trade: boolean;
  /** Days until it expires; null: never. */
  days: number | null;
  /** The addresses it may be used from, as typed (commas or spaces between); blank: any. */
  addresses: string;
}

export const createApiKey = (terms: NewKeyTerms) =>
  supabase().rpc('create_api_key', {
    p_name: terms.name,
    p_scopes: terms.trade ? ['read', 'trade'] : ['read'],
    p_allowed_ips: allowedAddresses(terms.addresses),
    p_expires_at: terms.days === null ? null : new Date(Date.now() + terms.days * 86_400_000).toISOString(),
  });

export const revokeApiKey = async (id: string) => refusal(await supabase().rpc('revoke_api_key', { p_id: id }));

/** The addresses typed, or null for any: the database checks each one and says which it cannot read. */
function allowedAddresses(typed: string): string[] | null {
  const list = typed.split(/[\s,]+/).filter(Boolean);
  return list.length ? list : null;
}
