import fs from 'node:fs';
import path from 'node:path';

/*
 * The published advisories RepX's dependencies have had, each with the first version that fixes it,
 * checked against every copy the lockfile installs. `npm audit` checks the registry's whole advisory
 * database where the registry answers it; this list keeps the fixes RepX made from being undone by
 * a lockfile change where it does not (an offline mirror refuses the audit endpoint).
 */
const FIXED_IN: { name: string; fixed: string; advisories: string }[] = [
  { name: 'ws', fixed: '8.21.1', advisories: 'CVE-2026-48779 (memory exhaustion), CVE-2026-45736' },
  { name: 'react-router', fixed: '7.18.6', advisories: 'CVE-2026-22029 (open redirect to XSS) and the 6.x line' },
];

/** Packages only the vulnerable React Router 6 line installs: React Router 7 merged them into react-router. */
const GONE = ['react-router-dom', '@remix-run/router'];

const lock = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string }>;
};

/** Every installed copy of `name`, as "path@version". */
function installed(name: string): { where: string; version: string }[] {
  return Object.entries(lock.packages)
    .filter(([where, p]) => where.endsWith(`node_modules/${name}`) && p.version)
    .map(([where, p]) => ({ where, version: p.version! }));
}

const atLeast = (version: string, floor: string) => {
  const [a, b] = [version, floor].map((v) => v.split('-')[0]!.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (a![i] !== b![i]) return a![i]! > b![i]!;
  return true;
};

describe('no installed dependency at a version with a known advisory', () => {
  it.each(FIXED_IN)('$name: every copy at $fixed or later ($advisories)', ({ name, fixed }) => {
    const stale = installed(name).filter((copy) => !atLeast(copy.version, fixed));
    expect(stale).toEqual([]);
  });

  it.each(GONE)('%s is not installed', (name) => {
    expect(installed(name)).toEqual([]);
  });

  it('finds the copies it checks: ws for Realtime, and one router (a Module Federation singleton)', () => {
    expect(installed('ws').length).toBeGreaterThan(0);
    expect(installed('react-router')).toHaveLength(1);
  });
});
