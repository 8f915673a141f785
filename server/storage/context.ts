import type { IncomingMessage } from 'node:http';
import { becomeCaller, httpContext, type RequestIdentity } from '../db/caller';
import { isPgError, type Database, type Queryable } from '../db/database';
import { HttpError } from '../http/io';

export interface Bucket {
  id: string;
  public: boolean;
  file_size_limit: string | null;
  allowed_mime_types: string[] | null;
}

/** Supabase Storage's error shape: statusCode (as text), error, message. */
export const storageError = (status: number, error: string, message: string) =>
  new HttpError(status, { statusCode: String(status), error, message });

/**
 * A name or prefix as the caller gave it, refused if it holds a control character: PostgreSQL's
 * text cannot hold a NUL at all, and no file's name needs the others.
 */
export function plainKey(key: string): string {
  if (/[\u0000-\u001f\u007f]/.test(key))
    throw storageError(400, 'Invalid Key', 'A name or path cannot hold control characters.');
  return key;
}

/** A path's bucket and object name, each part decoded; a malformed escape is the caller's error. */
export function splitPath(rest: string): { bucket: string; name: string } {
  let parts: string[];
  try {
    parts = rest.split('/').map(decodeURIComponent);
  } catch {
    throw storageError(400, 'Invalid Key', 'The path holds a malformed percent-escape.');
  }
  const [bucket, ...name] = parts.map(plainKey);
  return { bucket: bucket ?? '', name: name.join('/') };
}

export async function bucketOf(tx: Queryable, id: string): Promise<Bucket> {
  const [bucket] = await tx.query<Bucket>(
    'select id, public, file_size_limit::text, allowed_mime_types from storage.buckets where id = $1',
    [id],
  );
  if (!bucket) throw storageError(404, 'Bucket not found', 'Bucket not found');
  return bucket;
}

/**
 * Runs `fn` as the caller, so the policies on storage.objects decide. A policy's refusal is
 * Storage's 403; a limit the database keeps (a person's quota, 53400) is 413 in its own words.
 */
export async function asCaller<T>(
  db: Database,
  who: RequestIdentity,
  req: IncomingMessage,
  path: string,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      await becomeCaller(tx, who, httpContext(req, path));
      return fn(tx);
    });
  } catch (error) {
    if (isPgError(error) && error.code === '42501') {
      throw storageError(403, 'Unauthorized', 'new row violates row-level security policy');
    }
    if (isPgError(error) && error.code === '53400') throw storageError(413, 'Quota exceeded', error.message);
    throw error;
  }
}
