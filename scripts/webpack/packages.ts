import type { RemoteManifest } from '@repex/shared-ui/contracts';
import { manifest as admin } from '../../mf-admin/src/manifest';
import { manifest as market } from '../../mf-market/src/manifest';
import { manifest as portfolio } from '../../mf-portfolio/src/manifest';
import { manifest as trading } from '../../mf-trading/src/manifest';
import { manifest as wallet } from '../../mf-wallet/src/manifest';

/**
 * Every front-end package and its dev/serve port. What a remote exposes comes from its own
 * manifest (src/manifest.ts): each route's module `./Name` is built from `src/Name.tsx`.
 */
export const REMOTES = {
  market: { dir: 'mf-market', port: 3001, manifest: market },
  portfolio: { dir: 'mf-portfolio', port: 3002, manifest: portfolio },
  trading: { dir: 'mf-trading', port: 3003, manifest: trading },
  wallet: { dir: 'mf-wallet', port: 3004, manifest: wallet },
  admin: { dir: 'mf-admin', port: 3005, manifest: admin },
} as const satisfies Record<string, { dir: string; port: number; manifest: RemoteManifest }>;

export type RemoteName = keyof typeof REMOTES;
export const REMOTE_NAMES = Object.keys(REMOTES) as RemoteName[];
/** The shell; its page for every address but / is appPage (scripts/webpack/config.ts). */
export const SHELL = { dir: 'shell', port: 3000, appPage: 'app.html' } as const;
export const PACKAGE_DIRS = [SHELL.dir, ...REMOTE_NAMES.map((n) => REMOTES[n].dir)];

/** The modules a remote exposes, as Module Federation's `exposes` wants them. */
export function exposesOf(manifest: RemoteManifest): Record<string, string> {
  return Object.fromEntries(manifest.routes.map((r) => [r.module, `./src/${r.module.slice(2)}.tsx`]));
}

/** Beside mf-manifest.json, the file the shell reads a remote's routes from. */
export const ROUTES_FILE = 'routes.json';
