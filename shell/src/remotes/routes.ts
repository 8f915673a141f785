import { parseRemoteManifest, type RemoteRoute } from '@repex/shared-ui/contracts';

/** A route as the shell serves it: a remote's route, and which remote serves it. */
export interface ComposedRoute extends RemoteRoute {
  remote: string;
}

export interface ComposedRoutes {
  routes: ComposedRoute[];
  /** The main navigation: every remote's links, in their declared order. */
  nav: { to: string; label: string }[];
  /** Remotes whose routes could not be read (down, or an invalid file): their pages are unknown. */
  unavailable: string[];
  /** Each remote's build as this page found it (its release id once deployed). */
  builds: Record<string, string>;
}

/** Where a remote's routes.json is: beside its mf-manifest.json (or remoteEntry.js). */
const routesUrl = (entry: string) => new URL('routes.json', new URL(entry, window.location.href)).toString();

/**
 * Reads every remote's routes at start-up (data only: no remote code is fetched, the admin's
 * included). A remote that does not answer within `timeoutMs` is left out, so it cannot hold up
 * the app; the others still compose.
 */
export async function composeRoutes(remotes: Record<string, string>, timeoutMs = 5000): Promise<ComposedRoutes> {
  const results = await Promise.all(
    Object.entries(remotes).map(async ([remote, entry]) => {
      const giveUp = new AbortController();
      const timer = setTimeout(() => giveUp.abort(), timeoutMs);
      try {
        const res = await fetch(routesUrl(entry), { cache: 'no-cache', signal: giveUp.signal });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const manifest = parseRemoteManifest(await res.json(), remote);
        return { remote, routes: manifest.routes, build: manifest.build };
      } catch (error) {
        console.error(`[shell] the routes of remote '${remote}' could not be read`, error);
        return { remote, routes: null, build: undefined };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const routes = results.flatMap((r) => (r.routes ?? []).map((route) => ({ ...route, remote: r.remote })));
  return {
    routes,
    nav: routes
      .filter((r) => r.nav)
      .sort((a, b) => a.nav!.order - b.nav!.order)
      .map((r) => ({ to: r.path, label: r.nav!.label })),
    unavailable: results.filter((r) => !r.routes).map((r) => r.remote),
    builds: Object.fromEntries(results.flatMap((r) => (r.build ? [[r.remote, r.build]] : []))),
  };
}

/**
 * The loaded remotes, among `builds`, whose live release is now another one: read from their
 * routes.json (a few hundred bytes each, revalidated). A remote that does not answer is not newer.
 */
export async function newerReleases(
  remotes: Record<string, string>,
  builds: Record<string, string>,
  loaded: Iterable<string>,
): Promise<string[]> {
  const checked = await Promise.all(
    [...loaded].map(async (remote) => {
      const entry = remotes[remote];
      if (!entry || !builds[remote]) return null;
      try {
        const res = await fetch(routesUrl(entry), { cache: 'no-cache' });
        const { build } = parseRemoteManifest(await res.json(), remote);
        return build && build !== builds[remote] ? remote : null;
      } catch {
        return null;
      }
    }),
  );
  return checked.filter((r): r is string => r !== null);
}
