import type { RemoteManifest } from '@repex/shared-ui/contracts';

/** What this remote serves (the shell composes its routes and navigation from it). */
export const manifest: RemoteManifest = {
  routes: [
    { path: '/market', module: './Market', title: 'Market', access: 'signed-in', nav: { label: 'Market', order: 2 } },
    { path: '/fair-market', module: './FairMarket', title: 'How We Keep the Market Fair', access: 'signed-in' },
  ],
};
