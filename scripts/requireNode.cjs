// Runs before npm start and npm test, in plain JavaScript so that any Node can run it: says which
// Node RepX needs (package.json's engines; .nvmrc names the LTS it is built and tested with) when
// this one is older, instead of failing later in some dependency's words.
const path = require('node:path');
const root = path.resolve(__dirname, '..');
const { engines } = require(path.join(root, 'package.json'));
const needed = Number(/\d+/.exec(engines.node)[0]);
const major = Number(process.versions.node.split('.')[0]);
if (major < needed) {
  const lts = require('node:fs').readFileSync(path.join(root, '.nvmrc'), 'utf8').trim();
  console.error(
    `RepX needs Node ${needed} or later, and is built and tested on Node ${lts} (the LTS, .nvmrc); ` +
      `this is Node ${process.versions.node}. Install Node ${lts} (nvm install ${lts}, or the npm registry's node package) and run it again.`,
  );
  process.exit(1);
}
