import fs from 'node:fs';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { DATABASE_TYPES_FILE, formattedTypes } from '../tools/typesFile';

/*
 * The browser's database types (shared-ui/src/contracts/database.ts) are generated from the
 * database the migrations make: a schema change that was not followed by `npm run db:types` fails
 * here, on either engine, before a screen reads a column that is no longer there.
 */
describe.each(ENGINES)('the generated database types on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('match the database the migrations make (npm run db:types writes them)', async () => {
    expect(fs.readFileSync(DATABASE_TYPES_FILE, 'utf8')).toBe(await formattedTypes(backend.db));
  });
});
