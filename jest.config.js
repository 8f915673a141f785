/** One runner, three projects: unit (jsdom), integration (the real server) and e2e (Chromium). */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }];

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
        '<rootDir>/supabase/server',
        '<rootDir>/scripts/webpack',
        '<rootDir>/scripts/lib',
      ],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      transform: { '^.+\\.tsx?$': tsJest },
      globals: { __BUILD_ID__: 'test' },
      setupFilesAfterEnv: ['<rootDir>/scripts/jest/unit-setup.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      roots: ['<rootDir>/supabase/tests'],
      testMatch: ['**/*.test.ts'],
      transform: { '^.+\\.tsx?$': tsJest },
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/scripts/e2e'],
      testMatch: ['**/*.test.ts'],
      transform: { '^.+\\.tsx?$': tsJest },
    },
  ],
};
