import { loadRemote, preloadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import type { ComponentType } from 'react';

let entries: Record<string, string> = {};
/** The remotes whose code this page has loaded: the ones a newer release matters for. */
export const loadedRemotes = new Set<string>();
let shown!: () => void;
/** Resolves once a screen's code has loaded: what the page came for is no longer waiting on code. */
export const firstScreenLoaded = new Promise<void>((resolve) => (shown = resolve));

/** The remotes' entries, as /config.json names them. */
export const remoteEntries = () => entries;

/** Registers every remote from run-time config; nothing is fetched until a route needs it. */
export function registerConfiguredRemotes(remotes: Record<string, string>): void {
  entries = remotes;
  registerRemotes(Object.entries(remotes).map(([name, entry]) => ({ name, entry })));
}

/**
 * Loads `remote/module` (a module as the manifest names it, `./Wallet`) and returns its default export. A retry re-registers the remote with
 * `force`, which drops the federation runtime's cached (failed) entry, so a remote that came
 * back up is fetched anew.
 */
export async function loadScreen(remote: string, module: string, retry: boolean): Promise<ComponentType> {
  const entry = entries[remote];
  if (!entry) throw new Error(`No remote named '${remote}' in /config.json`);
  if (retry) registerRemotes([{ name: remote, entry }], { force: true });
  const mod = await loadRemote<{ default?: ComponentType }>(`${remote}/${module.replace(/^\.\//, '')}`);
  if (!mod?.default) throw new Error(`${remote}/${module} has no default export`);
  loadedRemotes.add(remote);
  shown();
  return mod.default;
}

/**
 * Fetches the entries and first-render chunks of these screens without running them, so that a
 * later first visit finds them in the cache. Their async chunks (a PDF library) still wait for use.
 */
export function preloadScreens(screens: { remote: string; module: string }[]): Promise<void> {
  const byRemote = new Map<string, string[]>();
  for (const { remote, module } of screens)
    if (entries[remote]) byRemote.set(remote, [...(byRemote.get(remote) ?? []), module.replace(/^\.\//, '')]);
  return preloadRemote(
    [...byRemote].map(([nameOrAlias, exposes]) => ({ nameOrAlias, exposes, resourceCategory: 'sync' as const })),
  );
}
