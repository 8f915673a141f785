import path from 'node:path';
import { REMOTE_NAMES, REMOTES, exposesOf } from './packages';

// The shell renders whatever a remote's manifest names as a screen component, so each exposed
// module must be one: a default export that React can render. A typo in a manifest fails here,
// not in a browser.
describe("every remote's manifest", () => {
  for (const name of REMOTE_NAMES) {
    it(`${name}: names modules that default-export a screen component`, async () => {
      const exposes = Object.entries(exposesOf(REMOTES[name].manifest));
      expect(exposes.length).toBeGreaterThan(0);
      for (const [module, file] of exposes) {
        const loaded = (await import(path.resolve(__dirname, '../..', REMOTES[name].dir, file))) as {
          default?: unknown;
        };
        expect([module, typeof loaded.default]).toEqual([module, 'function']);
      }
    });
  }
});
