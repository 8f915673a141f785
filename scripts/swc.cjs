/**
 * The one transpiler setting, for the builds (swc-loader) and the tests (@swc/jest): TypeScript
 * and JSX stripped to JavaScript, as tsconfig.json describes them. Type checking is its own step
 * (npm run typecheck); transpiling never waits on it, and no test runner holds TypeScript back.
 *
 * @param {'es6' | 'commonjs'} moduleType ES modules for webpack (it shakes them), CommonJS for jest.
 */
function swcOptions(moduleType) {
  return {
    jsc: {
      parser: { syntax: 'typescript', tsx: true },
      target: 'es2021',
      transform: { react: { runtime: 'automatic' }, useDefineForClassFields: true },
    },
    module: { type: moduleType },
    sourceMaps: moduleType === 'commonjs' ? 'inline' : false,
  };
}

module.exports = { swcOptions };
