/**
 * The contract between the shell and a remote: each remote declares, in its own
 * `src/manifest.ts`, the routes it serves, their navigation links and who may open them. Its
 * build exposes the modules named here and writes the manifest as `routes.json` beside its
 * `mf-manifest.json`; the shell reads every remote's `routes.json` at start-up (data only, no
 * code) and composes its routes and navigation from them.
 */

/** Who may open a route: any signed-in user, or an administrator (the shell checks the role
 * before the remote's code is fetched; the database checks it again on every call). */
export type RouteAccess = 'signed-in' | 'admin';

export interface RemoteRoute {
  /** The URL path in react-router's syntax, e.g. `/trading/:tokenId`. */
  path: string;
  /** The exposed module that renders it (its default export), e.g. `./Market`, built from `src/Market.tsx`. */
  module: `./${string}`;
  /** The screen's name, as messages say it ("The Market screen could not be loaded"). */
  title: string;
  access: RouteAccess;
  /** A link in the main navigation, placed by `order` among every remote's links. */
  nav?: { label: string; order: number };
}

export interface RemoteManifest {
  routes: RemoteRoute[];
  /** The build that wrote it (its release id once deployed), as its screens show it in data-build. */
  build?: string;
}

/** Checks a manifest read over the network: a remote's file is data, not trusted code. */
export function parseRemoteManifest(value: unknown, remote: string): RemoteManifest {
  const fail = (why: string) => new Error(`The routes of remote '${remote}' are invalid: ${why}`);
  if (!value || typeof value !== 'object' || !Array.isArray((value as RemoteManifest).routes)) throw fail('no routes');
  const routes = (value as RemoteManifest).routes.map((r, i) => {
    if (!r || typeof r.path !== 'string' || !r.path.startsWith('/')) throw fail(`route ${i} has no path`);
    if (typeof r.module !== 'string' || !r.module.startsWith('./')) throw fail(`${r.path} names no module`);
    if (typeof r.title !== 'string' || !r.title) throw fail(`${r.path} has no title`);
    if (r.access !== 'signed-in' && r.access !== 'admin')
      throw fail(`${r.path} has an unknown access "${String(r.access)}"`);
    if (r.nav && (typeof r.nav.label !== 'string' || typeof r.nav.order !== 'number'))
      throw fail(`${r.path} has a bad nav entry`);
    return {
      path: r.path,
      module: r.module,
      title: r.title,
      access: r.access,
      ...(r.nav ? { nav: { label: r.nav.label, order: r.nav.order } } : {}),
    };
  });
  const build = (value as RemoteManifest).build;
  return { routes, ...(typeof build === 'string' && build ? { build } : {}) };
}
