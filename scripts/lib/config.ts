import { authConfig } from '../../server/authConfig';
import { env, type Env } from '../../server/env';
import { readProjectConfig } from '../../server/projectConfig';
import { REMOTES, REMOTE_NAMES, SHELL, type RemoteName } from '../webpack/packages';

export interface StackPorts {
  shell: number;
  supabase: number;
  remotes: Record<RemoteName, number>;
}

const envPort = (name: keyof Env, fallback: number) => (env()[name] as number | undefined) ?? fallback;

/** Ports from the environment (see README, 'Configuration'), else the defaults. */
export function portsFromEnv(): StackPorts {
  return {
    shell: envPort('SHELL_PORT', SHELL.port),
    supabase: envPort('SUPABASE_PORT', 54321),
    remotes: Object.fromEntries(
      REMOTE_NAMES.map((n) => [n, envPort(`${n.toUpperCase()}_PORT` as keyof Env, REMOTES[n].port)]),
    ) as Record<RemoteName, number>,
  };
}

/**
 * What the shell serves as /config.json: every value can be overridden without a rebuild.
 * `anonKey` is the local backend's (signed with its own secret); a hosted project's comes from
 * SUPABASE_ANON_KEY.
 */
export function runtimeConfig(ports: StackPorts, anonKey?: string) {
  const set = env();
  const supabaseAnonKey = set.SUPABASE_ANON_KEY ?? anonKey;
  if (!supabaseAnonKey) throw new Error('SUPABASE_ANON_KEY must be set when the app runs without the local backend.');
  return {
    supabaseUrl: set.SUPABASE_URL ?? `http://localhost:${ports.supabase}`,
    supabaseAnonKey,
    // The auth server's rule (config.toml or PASSWORD_MIN_LENGTH; set it to a hosted project's setting).
    passwordMinLength: authConfig().minimumPasswordLength,
    // The API's rule for estimated counts (config.toml's [api] max_rows, a hosted project's too).
    maxRows: readProjectConfig().maxRows,
    remotes: Object.fromEntries(
      REMOTE_NAMES.map((n) => [
        n,
        (set[`REMOTE_${n.toUpperCase()}_URL` as keyof Env] as string | undefined) ??
          `http://localhost:${ports.remotes[n]}/mf-manifest.json`,
      ]),
    ),
  };
}
