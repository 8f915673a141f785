/**
 * Run-time configuration, read from /config.json when the page loads, so the same build runs
 * against any backend and any set of remote URLs: nothing here is baked in at build time.
 */
export interface RuntimeConfig {
  supabaseUrl: string;
  supabaseAnonKey: string;
  /** The auth server's minimum password length, checked by the sign-up form before it asks. */
  passwordMinLength: number;
  /** The API's max_rows: its estimated counts are exact up to it (none: always exact). */
  maxRows?: number;
  /** Remote name -> URL of its mf-manifest.json (or remoteEntry.js). */
  remotes: Record<string, string>;
}

export async function loadConfig(): Promise<RuntimeConfig> {
  const res = await fetch('/config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`Could not load /config.json (HTTP ${res.status})`);
  const config = (await res.json()) as RuntimeConfig;
  if (
    !config.supabaseUrl ||
    !config.supabaseAnonKey ||
    !config.remotes ||
    !Number.isInteger(config.passwordMinLength) ||
    (config.maxRows !== undefined && !Number.isInteger(config.maxRows))
  ) {
    throw new Error(
      '/config.json must define supabaseUrl, supabaseAnonKey, passwordMinLength and remotes, and maxRows as a whole number if at all',
    );
  }
  return config;
}
