/** One API key, as `list_api_keys()` and the admin's account details show it (never the key itself: supabase/schemas/api_keys.sql). */
export interface ApiKey {
  id: string;
  name: string;
  scopes: ('read' | 'trade')[];
  /** The key's first characters ("repx_AbCdEfG"), to tell it from the owner's others. */
  prefix: string;
  /** The addresses it may be used from; null: any. */
  allowed_ips: string[] | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  status: 'active' | 'revoked' | 'expired';
}

/** `create_api_key(...)`: the new key, shown this once. */
export interface NewApiKey {
  id: string;
  key: string;
}
