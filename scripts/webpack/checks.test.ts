/** @jest-environment node */
import path from 'node:path';
import fs from 'node:fs';
import type { StatsCompilation } from 'webpack';
import { biggestModules, overBudget, singletonMismatches } from './checks';
import { sharedConfig } from './federation';

const ROOT = path.resolve(__dirname, '../..');
const installed = (name: string) => path.join(ROOT, 'node_modules', name, 'index.js');

describe('the build checks', () => {
  it('pass a bundle whose shared libraries are the declared versions', () => {
    const stats: StatsCompilation = {
      modules: [{ nameForCondition: installed('zustand') }, { nameForCondition: installed('react') }],
    };
    expect(singletonMismatches(stats)).toEqual([]);
  });

  it('name a shared library bundled at a version other than the declared one', () => {
    const nested = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.checks-test-'));
    try {
      fs.mkdirSync(path.join(nested, 'node_modules', 'zustand'), { recursive: true });
      fs.writeFileSync(
        path.join(nested, 'node_modules', 'zustand', 'package.json'),
        JSON.stringify({ name: 'zustand', version: '5.0.0' }),
      );
      const stats: StatsCompilation = {
        modules: [{ nameForCondition: path.join(nested, 'node_modules', 'zustand', 'index.js') }],
      };
      expect(singletonMismatches(stats)).toEqual([
        `zustand: bundled 5.0.0, declared ${sharedConfig(true).zustand.version}`,
      ]);
    } finally {
      fs.rmSync(nested, { recursive: true, force: true });
    }
  });

  it('fail a budget with the number and the biggest modules, and pass one within it', () => {
    const stats: StatsCompilation = {
      chunks: [{ id: 1, files: ['a.js'] } as never, { id: 2, files: ['b.js'] } as never],
      modules: [
        { name: './src/Small.tsx', size: 1024, chunks: [1] },
        { name: '../node_modules/big/index.js', size: 10 * 1024, chunks: [1] },
        { name: './src/Elsewhere.tsx', size: 50 * 1024, chunks: [2] },
      ],
    };
    expect(overBudget('first visit to Market', 90, 100, () => biggestModules(stats, ['a.js']))).toBeUndefined();
    expect(overBudget('first visit to Market', 120.25, 100, () => biggestModules(stats, ['a.js']))).toBe(
      'first visit to Market: 120.3 KB gzipped, over its 100 KB budget. Biggest modules: ../node_modules/big/index.js (10.0 KB), src/Small.tsx (1.0 KB)',
    );
  });
});

describe('the declared dependencies', () => {
  const packages = [
    '.',
    'shared-ui',
    'shell',
    'mf-market',
    'mf-portfolio',
    'mf-trading',
    'mf-wallet',
    'mf-admin',
    'server',
  ];
  const declared = packages.map((dir) => {
    const json = JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    return { dir, deps: { ...json.dependencies, ...json.devDependencies } };
  });

  it('declare each package at one version wherever it is declared', () => {
    const specs = new Map<string, Set<string>>();
    for (const { deps } of declared)
      for (const [name, spec] of Object.entries(deps)) specs.set(name, (specs.get(name) ?? new Set()).add(spec));
    const split = [...specs].filter(([, s]) => s.size > 1).map(([name, s]) => `${name}: ${[...s].join(' vs ')}`);
    expect(split).toEqual([]);
  });

  it('install each shared singleton once, at the version the shell declares', () => {
    for (const [key, share] of Object.entries(sharedConfig(true))) {
      const subpath = key.split('/').length > (key.startsWith('@') ? 2 : 1); // react/jsx-runtime is react's
      if (subpath || key.startsWith('@repex/')) continue;
      const copies = packages
        .map((dir) => path.join(ROOT, dir, 'node_modules', key, 'package.json'))
        .filter((f) => fs.existsSync(f))
        .map((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { version: string }).version);
      expect([key, copies]).toEqual([key, [share.version]]);
    }
  });
});
