import path from 'node:path';
import prettier from 'prettier';
import type { Queryable } from '../server/db/database';
import { databaseTypes } from './types';

/** Where the generated types live: the contracts every package may import. */
export const DATABASE_TYPES_FILE = path.resolve(__dirname, '../shared-ui/src/contracts/database.ts');

/** The types as the file holds them: generated, then formatted by the project's Prettier settings. */
export async function formattedTypes(db: Queryable): Promise<string> {
  const options = (await prettier.resolveConfig(DATABASE_TYPES_FILE)) ?? {};
  return prettier.format(await databaseTypes(db), { ...options, filepath: DATABASE_TYPES_FILE });
}
