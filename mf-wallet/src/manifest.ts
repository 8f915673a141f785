import type { RemoteManifest } from '@repex/shared-ui/contracts';

/** What this remote serves (the shell composes its routes and navigation from it). */
export const manifest: RemoteManifest = {
  routes: [
    { path: '/wallet', module: './Wallet', title: 'Wallet', access: 'signed-in', nav: { label: 'Wallet', order: 4 } },
  ],
};
