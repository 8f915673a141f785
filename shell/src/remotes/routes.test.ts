import { composeRoutes } from './routes';

const manifests: Record<string, unknown> = {
  'http://r1/routes.json': {
    routes: [
      { path: '/wallet', module: './Wallet', title: 'Wallet', access: 'signed-in', nav: { label: 'Wallet', order: 4 } },
    ],
  },
  'http://r2/routes.json': {
    routes: [
      {
        path: '/dashboard',
        module: './Dashboard',
        title: 'Dashboard',
        access: 'signed-in',
        nav: { label: 'Dashboard', order: 1 },
      },
      { path: '/nra/x', module: './Admin', title: 'Admin', access: 'admin' },
    ],
  },
  'http://bad/routes.json': {
    routes: [{ path: '/evil', module: 'https://elsewhere/x.js', title: 'X', access: 'signed-in' }],
  },
};

beforeEach(() => {
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  global.fetch = jest.fn(async (url: string) => {
    if (!(url in manifests)) return { ok: false, status: 502, json: async () => ({}) };
    return { ok: true, status: 200, json: async () => manifests[url] };
  }) as unknown as typeof fetch;
});

describe("composing the remotes' routes", () => {
  it("takes each remote's routes beside its mf-manifest.json, and orders the navigation by the remotes' order", async () => {
    const composed = await composeRoutes({
      wallet: 'http://r1/mf-manifest.json',
      portfolio: 'http://r2/mf-manifest.json',
    });
    expect(composed.routes.map((r) => [r.remote, r.path, r.access])).toEqual([
      ['wallet', '/wallet', 'signed-in'],
      ['portfolio', '/dashboard', 'signed-in'],
      ['portfolio', '/nra/x', 'admin'],
    ]);
    expect(composed.nav).toEqual([
      { to: '/dashboard', label: 'Dashboard' },
      { to: '/wallet', label: 'Wallet' },
    ]);
    expect(composed.unavailable).toEqual([]);
  });

  it('leaves out a remote that does not answer or whose routes are invalid, and names it', async () => {
    const composed = await composeRoutes({
      wallet: 'http://r1/mf-manifest.json',
      down: 'http://down/mf-manifest.json',
      bad: 'http://bad/mf-manifest.json',
    });
    expect(composed.routes.map((r) => r.path)).toEqual(['/wallet']);
    expect(composed.unavailable).toEqual(['down', 'bad']);
  });
});
