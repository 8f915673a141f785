import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Where objects' bytes live. Over PostgreSQL they stay in storage.objects.content, so that every
 * server process, on any host, reads the same objects. On PGlite, one embedded database in the
 * server's one thread, writing megabytes into it would hold up every other request while it
 * runs: the bytes go to files beside the data folder (or memory, for an in-memory database), and
 * the row keeps only what the policies and the listing need, with the blob's name in its metadata.
 * Each version of an object is a new blob, written before its row and removed after the row moves
 * on, so a reader never finds a row without its bytes.
 */
export interface ObjectBytes {
  readonly inDatabase: boolean;
  /** Writes a new blob; resolves to its name. */
  write(bytes: Buffer): Promise<string>;
  read(blob: string): Promise<Buffer | null>;
  remove(blobs: string[]): Promise<void>;
}

export const bytesInDatabase: ObjectBytes = {
  inDatabase: true,
  write: () => Promise.reject(new Error('bytes in the database are written with their row')),
  read: () => Promise.resolve(null),
  remove: () => Promise.resolve(),
};

const BLOB = /^[0-9a-f-]{36}$/;

export function bytesInFolder(dir: string): ObjectBytes {
  const file = (blob: string) => {
    if (!BLOB.test(blob)) throw new Error(`not a blob name: ${blob}`);
    return path.join(dir, blob);
  };
  return {
    inDatabase: false,
    async write(bytes) {
      await fs.mkdir(dir, { recursive: true });
      const blob = randomUUID();
      const partial = `${file(blob)}.partial`;
      await fs.writeFile(partial, bytes);
      await fs.rename(partial, file(blob));
      return blob;
    },
    read: (blob) => fs.readFile(file(blob)).catch(() => null),
    async remove(blobs) {
      await Promise.all(blobs.map((b) => fs.rm(file(b), { force: true })));
    },
  };
}

export function bytesInMemory(): ObjectBytes {
  const blobs = new Map<string, Buffer>();
  return {
    inDatabase: false,
    async write(bytes) {
      const blob = randomUUID();
      blobs.set(blob, bytes);
      return blob;
    },
    read: async (blob) => blobs.get(blob) ?? null,
    async remove(names) {
      for (const b of names) blobs.delete(b);
    },
  };
}
