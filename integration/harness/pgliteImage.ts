import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emptyDataDirImage } from '../../server/db/pglite';

let image: Promise<Blob> | undefined;

/**
 * The empty data directory the suites' in-memory PGlite databases start from, made once per PGlite
 * version and kept in the temp folder for the next test file and run: initdb took about two thirds
 * of each new database's start (3-5 s of 4-6 on this kind of machine), and the suites start about
 * sixty. Migrations and the seed still run on each database, as on any fresh install.
 */
export function pgliteImage(): Promise<Blob> {
  image ??= readOrMake();
  return image;
}

async function readOrMake(): Promise<Blob> {
  const file = path.join(os.tmpdir(), `repex-pglite-${pgliteVersion()}-empty.tar`);
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const made = await emptyDataDirImage();
  // Written aside and renamed: a test file in another worker reads a whole image or none.
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, Buffer.from(await made.arrayBuffer()));
  fs.renameSync(partial, file);
  return made;
}

function pgliteVersion(): string {
  const dist = path.dirname(require.resolve('@electric-sql/pglite'));
  return (JSON.parse(fs.readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as { version: string }).version;
}
