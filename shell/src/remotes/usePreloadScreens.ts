import { useEffect } from 'react';
import type { ComposedRoute } from './routes';
import { HOME } from '../auth/guards';
import { firstScreenLoaded, preloadScreens } from './registry';

/** What the first screen's own reads get before the preload starts. */
const HEAD_START_MS = 1_000;

/** When the browser has nothing better to do: at once where it has no idle callback (Safari). */
const whenIdle = (run: () => void): (() => void) => {
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(run, { timeout: 3_000 });
    return () => window.cancelIdleCallback(id);
  }
  const id = window.setTimeout(run, 200);
  return () => window.clearTimeout(id);
};

/**
 * A signed-in person's next screen is one of the signed-in screens (the navigation's, and trading
 * from the market): once the current one's code has loaded, its data has had a head start and the
 * browser is idle, fetch their code, so a first click costs no download and the screen being
 * opened never shares the network with it. The admin area is
 * never fetched before its role check (AdminGuard), and a remote that is down costs nothing more
 * than the failed request: its screen says so when visited.
 */
export function usePreloadScreens(signedIn: boolean, routes: ComposedRoute[]): void {
  useEffect(() => {
    if (!signedIn) return;
    const screens = routes.filter((r) => r.access === 'signed-in');
    let cancel = () => {};
    let live = true;
    void firstScreenLoaded.then(() => {
      const timer = window.setTimeout(() => {
        cancel = whenIdle(() => {
          preloadScreens(screens).catch((error: unknown) => console.warn('[shell] preloading screens failed', error));
        });
      }, HEAD_START_MS);
      cancel = () => window.clearTimeout(timer);
      if (!live) cancel();
    });
    return () => {
      live = false;
      cancel();
    };
  }, [signedIn, routes]);
}

/**
 * A visitor on a sign-in page is about to see the screen a sign-in lands on: its code is fetched
 * when the browser is idle, so signing in waits only for the sign-in and the screen's reads.
 */
export function usePreloadHome(signingIn: boolean, routes: ComposedRoute[]): void {
  useEffect(() => {
    const home = routes.filter((r) => r.path === HOME && r.access === 'signed-in');
    if (!signingIn || !home.length) return;
    return whenIdle(() => {
      preloadScreens(home).catch((error: unknown) => console.warn('[shell] preloading the dashboard failed', error));
    });
  }, [signingIn, routes]);
}
