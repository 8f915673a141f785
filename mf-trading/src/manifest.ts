import type { RemoteManifest } from '@repex/shared-ui/contracts';

/** What this remote serves (the shell composes its routes and navigation from it). */
export const manifest: RemoteManifest = {
  routes: [{ path: '/trading/:tokenId', module: './Trading', title: 'Trading', access: 'signed-in' }],
};
