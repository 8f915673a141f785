import type { RemoteManifest } from '@repex/shared-ui/contracts';

/** What this remote serves (the shell composes its routes and navigation from it). */
export const manifest: RemoteManifest = {
  routes: [
    {
      path: '/dashboard',
      module: './Dashboard',
      title: 'Dashboard',
      access: 'signed-in',
      nav: { label: 'Dashboard', order: 1 },
    },
    {
      path: '/auto-invest',
      module: './AutoInvest',
      title: 'Auto-Invest',
      access: 'signed-in',
    },
    {
      path: '/portfolio-analysis',
      module: './PortfolioAnalysis',
      title: 'Portfolio Analysis',
      access: 'signed-in',
    },
    {
      path: '/profile',
      module: './Profile',
      title: 'Profile',
      access: 'signed-in',
      nav: { label: 'Profile', order: 3 },
    },
  ],
};
