import { createRequire } from 'node:module';
import path from 'node:path';

/** The shared libraries resolve as the package that imports them, the UI kit, does. */
const requireFromKit = createRequire(path.join(__dirname, '../../shared-ui/package.json'));

/**
 * The one sharing policy for every build. Each library here exists once in the browser:
 * the shell provides it, remotes carry no copy (`import: false`), so a second instance
 * cannot happen. The subpaths our code imports (react/jsx-runtime from the JSX transform,
 * react-dom/client in the shell) are listed too: they would otherwise slip past the bare key
 * and bring a second React.
 */
const SINGLETONS = [
  'react',
  'react/jsx-runtime',
  'react-dom',
  'react-dom/client',
  'react-router',
  'styled-components',
  'zustand',
  '@supabase/supabase-js',
  '@repex/shared-ui/platform',
  // Not a singleton by nature, but 170 KB that three remotes draw with: shared, it downloads once.
  'lightweight-charts',
] as const;

/** What the shell provides under a key, where it is not the package itself (see that file for why). */
const PROVIDED_FROM: Partial<Record<(typeof SINGLETONS)[number], string>> = {
  'react-router': path.join(__dirname, '../../shared-ui/src/router/index.ts'),
};

function versionOf(key: string): string {
  const name = key.startsWith('@') ? key.split('/').slice(0, 2).join('/') : key.split('/')[0]!;
  return (requireFromKit(`${name}/package.json`) as { version: string }).version;
}

export function sharedConfig(isHost: boolean) {
  return Object.fromEntries(
    SINGLETONS.map((key) => [
      key,
      {
        singleton: true,
        requiredVersion: `^${versionOf(key)}`,
        version: versionOf(key),
        ...(isHost ? (PROVIDED_FROM[key] ? { import: PROVIDED_FROM[key] } : {}) : { import: false as const }),
      },
    ]),
  );
}
