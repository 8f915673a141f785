// Lint: typescript-eslint's recommended rules and React's rules of hooks, over every package;
// formatting is Prettier's alone (eslint-config-prettier turns off the rules it owns).
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  // What the build, `npm start` (each package's deployed releases) and the tests write: never source.
  {
    ignores: [
      '**/dist/**',
      '**/releases/**',
      '**/node_modules/**',
      'test-results/**',
      '.data/**',
      'coverage/**',
      '.tmp/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    // Plain CommonJS scripts run by Node itself (scripts/requireNode.cjs).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // React's rules where React lives: they run the React Compiler over each file, most of lint's
    // time, which the server, the scripts and the database's tests do not need.
    files: ['shell/src/**/*.{ts,tsx}', 'mf-*/src/**/*.{ts,tsx}', 'shared-ui/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Code a reader can hold: no file over 300 lines (generated files aside), tests included.
    files: ['**/*.{ts,tsx}'],
    ignores: ['shared-ui/src/contracts/database.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    // And no function over 120 lines, tests aside: their describe blocks are lists of cases.
    files: ['**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}', 'e2e/**', 'integration/**', 'shared-ui/src/contracts/database.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Components are views: their reads and calls go through their package's data module (the
    // shell's auth/data.ts, a remote's data.ts) or the platform's hooks, never the client directly.
    files: ['shell/src/**/*.tsx', 'mf-*/src/**/*.tsx', 'shared-ui/src/ui/**/*.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='supabase']",
          message: "A component reads and calls through its package's data module, not supabase().",
        },
      ],
    },
  },
  {
    // The architecture's import rules. The UI kit is stateless and sits below the platform (which
    // imports its formats): it imports nothing of the platform, so no loop joins the two. What a
    // kit component must do with the platform (a toast, a call) is handed in as a prop.
    files: ['shared-ui/src/ui/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/platform', '**/platform/**', '@repex/shared-ui/platform'],
              message: 'The UI kit imports nothing of the platform: take what you need as a prop.',
            },
          ],
        },
      ],
    },
  },
  {
    // A package reaches shared-ui only through its three entries, and never another package's source.
    files: ['shell/src/**/*.{ts,tsx}', 'mf-*/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/shared-ui/src/**'], message: "Import '@repex/shared-ui/ui', '/platform' or '/contracts'." },
            { group: ['**/shell/src/**', '**/mf-*/src/**'], message: 'A remote never imports another package.' },
          ],
        },
      ],
    },
  },
  prettier,
);
