import { createRequire } from 'node:module';
import path from 'node:path';

const requireFromRoot = createRequire(path.join(__dirname, '../../package.json'));

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
  'react-router-dom',
  'styled-components',
  'zustand',
  '@supabase/supabase-js',
  '@repex/shared-ui/platform',
] as const;

function versionOf(key: string): string {
  const name = key.startsWith('@') ? key.split('/').slice(0, 2).join('/') : key.split('/')[0]!;
  return (requireFromRoot(`${name}/package.json`) as { version: string }).version;
}

export function sharedConfig(isHost: boolean) {
  return Object.fromEntries(
    SINGLETONS.map((key) => [
      key,
      {
        singleton: true,
        requiredVersion: `^${versionOf(key)}`,
        version: versionOf(key),
        ...(isHost ? {} : { import: false as const }),
      },
    ]),
  );
}
