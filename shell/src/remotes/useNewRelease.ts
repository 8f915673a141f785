import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { loadedRemotes, remoteEntries } from './registry';
import { newerReleases } from './routes';

/** How often the shell looks for newer releases while the user stays on one screen. */
const EVERY_MS = 5 * 60_000;

/** Whether the user is in the middle of something a reload would lose: a dialog, or a form field. */
const busy = () =>
  !!document.querySelector('[role="dialog"]') ||
  !!document.activeElement?.closest('input, textarea, select, [contenteditable="true"]');

/**
 * Whether a remote this page has loaded has a newer live release, looked for when the user moves
 * to another screen (a moment that loses nothing) and every few minutes; it is said only when no
 * dialog is open and no field has focus. The page is never reloaded without the user.
 */
export function useNewRelease(builds: Record<string, string>): boolean {
  const [newer, setNewer] = useState(false);
  const path = useLocation().pathname;
  useEffect(() => {
    if (newer) return;
    let live = true;
    const look = () =>
      void newerReleases(remoteEntries(), builds, loadedRemotes).then(
        (found) => live && found.length > 0 && !busy() && setNewer(true),
      );
    look();
    const timer = setInterval(look, EVERY_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [path, builds, newer]);
  return newer;
}
