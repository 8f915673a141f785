import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A package's releases: each build it deployed, whole, in `<package>/releases/<id>/`, and the id
 * of the live one in `<package>/releases/LIVE`. A release is never changed once written; going
 * live, or back, is the rename of LIVE, so a reader sees the old id or the new one, never half.
 * Pages that loaded an older entry keep loading that release's chunks, since the static server
 * looks a chunk up in every kept release (staticServer.ts).
 */
export const LIVE_FILE = 'LIVE';
/** How many releases a deploy keeps, unless told otherwise (RELEASES_KEPT). */
export const DEFAULT_KEPT = 5;

export const releasesDir = (pkgDir: string) => path.join(pkgDir, 'releases');

/** A new release's id: when it was built and from which commit, so ids sort by time. */
export function newReleaseId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.(\d{3})Z$/, '$1Z');
  let commit = 'nogit';
  try {
    commit = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    // not a git checkout (an unpacked tarball): the time alone names the release
  }
  return `${stamp}-${commit}`;
}

/** The kept releases, oldest first. */
export function releaseIds(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** The live release's id, if the package has one. */
export function liveRelease(root: string): string | null {
  try {
    return fs.readFileSync(path.join(root, LIVE_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Makes `id` the live release: one rename, so the switch is atomic. */
export function goLive(root: string, id: string): void {
  if (!fs.existsSync(path.join(root, id))) throw new Error(`There is no release ${id} in ${root}.`);
  const next = path.join(root, `${LIVE_FILE}.${process.pid}.tmp`);
  fs.writeFileSync(next, `${id}\n`);
  fs.renameSync(next, path.join(root, LIVE_FILE));
}

/** The release before the live one, which a rollback returns to. */
export function previousRelease(root: string): string | null {
  const ids = releaseIds(root);
  const live = liveRelease(root);
  const at = live ? ids.indexOf(live) : -1;
  return at > 0 ? ids[at - 1]! : null;
}

/**
 * Removes the oldest releases beyond `kept`, never the live one nor the one before it: pages
 * opened on either may still ask for their chunks.
 */
export function prune(root: string, kept: number): string[] {
  const ids = releaseIds(root);
  const keep = new Set([...ids.slice(-Math.max(kept, 1)), liveRelease(root), previousRelease(root)]);
  const removed = ids.filter((id) => !keep.has(id));
  for (const id of removed) fs.rmSync(path.join(root, id), { recursive: true, force: true });
  return removed;
}
