import type { RemoteManifest } from '@repex/shared-ui/contracts';

/** What this remote serves (the shell composes its routes from it; spec section 6 names the path). */
export const manifest: RemoteManifest = {
  routes: [{ path: '/nra/login/profile', module: './Admin', title: 'Admin', access: 'admin' }],
};
