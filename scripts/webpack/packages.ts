/** Every front-end package, its dev/serve port and what a remote exposes. */
export const REMOTES = {
  market: { dir: 'mf-market', port: 3001, exposes: { './Market': './src/Market.tsx' } },
  portfolio: {
    dir: 'mf-portfolio',
    port: 3002,
    exposes: { './Dashboard': './src/Dashboard.tsx', './Profile': './src/Profile.tsx' },
  },
  trading: { dir: 'mf-trading', port: 3003, exposes: { './Trading': './src/Trading.tsx' } },
  wallet: { dir: 'mf-wallet', port: 3004, exposes: { './Wallet': './src/Wallet.tsx' } },
  admin: { dir: 'mf-admin', port: 3005, exposes: { './Admin': './src/Admin.tsx' } },
} as const;

export type RemoteName = keyof typeof REMOTES;
export const REMOTE_NAMES = Object.keys(REMOTES) as RemoteName[];
export const SHELL = { dir: 'shell', port: 3000 } as const;
export const PACKAGE_DIRS = [SHELL.dir, ...REMOTE_NAMES.map((n) => REMOTES[n].dir)];
