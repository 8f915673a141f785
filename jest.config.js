/** One runner, three projects: unit (jsdom), integration (the real server) and e2e (Chromium). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config, as jest reads it
const { swcOptions } = require('./scripts/swc.cjs');

const swc = ['@swc/jest', swcOptions('commonjs')];
/*
 * jose ships only ES modules. Jest loads them as they are on Node 24.9 and later (require(esm));
 * on older Nodes (22) they are compiled to CommonJS first, so the suite runs on both.
 */
const [major, minor] = process.versions.node.split('.').map(Number);
const loadsEsm = major > 24 || (major === 24 && minor >= 9);
const transforms = loadsEsm
  ? { transform: { '^.+\\.tsx?$': swc } }
  : {
      transform: { '^.+\\.tsx?$': swc, '^.+/node_modules/jose/.+\\.js$': '<rootDir>/scripts/jest/esmToCjs.cjs' },
      transformIgnorePatterns: ['/node_modules/(?!jose/)'],
    };

module.exports = {
  // A global option in Jest 29: integration and e2e files start databases (PGlite takes seconds
  // on a busy 2-CPU machine); e2e files set longer ones of their own.
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'jsdom',
      roots: [
        '<rootDir>/shared-ui/src',
        '<rootDir>/shell/src',
        '<rootDir>/mf-market/src',
        '<rootDir>/mf-portfolio/src',
        '<rootDir>/mf-trading/src',
        '<rootDir>/mf-wallet/src',
        '<rootDir>/mf-admin/src',
        '<rootDir>/server',
        '<rootDir>/scripts/webpack',
        '<rootDir>/scripts/lib',
      ],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      ...transforms,
      globals: { __BUILD_ID__: 'test' },
      setupFilesAfterEnv: ['<rootDir>/scripts/jest/unit-setup.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      roots: ['<rootDir>/integration'],
      testMatch: ['**/*.test.ts'],
      ...transforms,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/e2e'],
      testMatch: ['**/*.test.ts'],
      ...transforms,
    },
  ],
};
