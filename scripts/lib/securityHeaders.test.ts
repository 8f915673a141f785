import { createHash } from 'node:crypto';
import { SESSION_PROBE } from '@repex/shared-ui/session-probe';
import { securityHeaders } from './securityHeaders';

/** The one inline script the page may run: the session probe, by its hash. */
const PROBE = `'sha256-${createHash('sha256').update(SESSION_PROBE).digest('base64')}'`;

describe('the shell page security headers', () => {
  const config = {
    supabaseUrl: 'https://abc.supabase.co',
    supabaseAnonKey: 'key',
    passwordMinLength: 6,
    maxRows: 1000,
    remotes: {
      market: 'https://cdn.example/market/mf-manifest.json',
      portfolio: 'https://cdn.example/portfolio/mf-manifest.json',
      trading: 'http://localhost:3003/mf-manifest.json',
      wallet: 'http://localhost:3004/mf-manifest.json',
      admin: 'http://localhost:3005/mf-manifest.json',
    },
  };
  const policy = () =>
    Object.fromEntries(
      securityHeaders(config)
        ['Content-Security-Policy'].split('; ')
        .map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );

  it('loads scripts from the page and the remotes (each origin once), nothing inline but the probe', () => {
    expect(policy()['script-src']).toEqual([
      "'self'",
      PROBE,
      'https://cdn.example',
      'http://localhost:3003',
      'http://localhost:3004',
      'http://localhost:3005',
    ]);
  });

  it("counts a remote at a relative URL (served by the shell's host) as the page's own", () => {
    const relative = { ...config, remotes: { ...config.remotes, market: '/remotes/market/mf-manifest.json' } };
    const scripts = securityHeaders(relative)
      ['Content-Security-Policy'].split('; ')
      .find((d) => d.startsWith('script-src'));
    expect(scripts).toBe(
      `script-src 'self' ${PROBE} https://cdn.example http://localhost:3003 http://localhost:3004 http://localhost:3005`,
    );
  });

  it('talks to the backend over HTTP and its Realtime socket, and shows images only from it', () => {
    expect(policy()['connect-src']).toEqual(
      expect.arrayContaining(['https://abc.supabase.co', 'wss://abc.supabase.co']),
    );
    expect(policy()['img-src']).toEqual(["'self'", 'data:', 'https://abc.supabase.co']);
  });

  it('lets no other site frame the page, and no plugin or base URL in', () => {
    expect(policy()).toMatchObject({
      'frame-ancestors': ["'none'"],
      'object-src': ["'none'"],
      'base-uri': ["'self'"],
    });
    expect(securityHeaders(config)['X-Content-Type-Options']).toBe('nosniff');
  });
});
