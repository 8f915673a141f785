// A jest transform for dependencies that ship only ES modules (jose): compiled to CommonJS by
// esbuild, as our own files are by ts-jest. Node 24.9 and later load them as they are; Node 22's
// jest cannot, and RepX's suite runs on both.
const { transformSync } = require('esbuild');

module.exports = {
  process(source, file) {
    const { code, map } = transformSync(source, {
      format: 'cjs',
      target: 'node22',
      loader: 'js',
      sourcefile: file,
      sourcemap: 'external',
    });
    return { code, map };
  },
};
