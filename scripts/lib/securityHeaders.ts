import { createHash } from 'node:crypto';
import { SESSION_PROBE } from '@repex/shared-ui/session-probe';
import type { runtimeConfig } from './config';

type RuntimeConfig = ReturnType<typeof runtimeConfig>;

/** Where a configured URL lives; a relative one (a remote served by the shell's host) is the page's own. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "'self'";
  }
}

/**
 * The headers the shell's page is served with. The Content-Security-Policy names the only places
 * the page may load from: its own origin, the remotes (scripts and manifests) and the backend
 * (its API, its Realtime socket, and its storage for images, so a profile picture cannot make
 * viewers' browsers fetch from anywhere else). No inline or evaluated script but the session probe
 * that hides the landing page from a signed-in visitor (allowed by its hash), no plugins, no
 * framing by other sites (clickjacking an order button). Styles may be inline: styled-components
 * writes them at run time. A host serving the built shell in production sends the same.
 */
export function securityHeaders(config: RuntimeConfig): Record<string, string> {
  const backend = new URL(config.supabaseUrl).origin;
  const socket = backend.replace(/^http/, 'ws');
  const remotes = [...new Set(Object.values(config.remotes).map(originOf))].filter((o) => o !== "'self'");
  const policy = {
    'default-src': ["'self'"],
    'script-src': ["'self'", `'sha256-${createHash('sha256').update(SESSION_PROBE).digest('base64')}'`, ...remotes],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', backend],
    'connect-src': ["'self'", backend, socket, ...remotes],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  return {
    'Content-Security-Policy': Object.entries(policy)
      .map(([directive, sources]) => `${directive} ${sources.join(' ')}`)
      .join('; '),
    'X-Content-Type-Options': 'nosniff',
  };
}
