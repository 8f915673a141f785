import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import type { Database } from '../db/database';
import type { RateLimiter } from '../http/rateLimit';
import { asCaller, bucketOf, splitPath, storageError } from './context';
import { listing } from './listing';
import type { ObjectBytes } from './objects';
import { readLimited, uploader } from './upload';

interface Stored {
  content: Buffer | null;
  metadata: { mimetype?: string; cacheControl?: string; blob?: string };
}

/**
 * The subset of Supabase Storage that supabase-js's storage client uses: upload (POST, with
 * x-upsert) and update (PUT), download, public URLs, list and remove. Each call runs as the caller,
 * so the policies on storage.objects decide who reads and writes what; the bucket's size and type
 * limits are checked here, as the storage server does, and a person's quota by the database
 * (supabase/schemas/storage.sql). Uploads are rate-limited per person.
 */
export function storageRoutes(db: Database, bytesStore: ObjectBytes, uploads: RateLimiter) {
  const upload = uploader(db, bytesStore, uploads);
  const { list, remove } = listing(db, bytesStore);

  async function download(res: ServerResponse, rows: Stored[]) {
    const [object] = rows;
    const bytes =
      object && (object.content ?? (object.metadata.blob ? await bytesStore.read(object.metadata.blob) : null));
    if (!object || !bytes) throw storageError(404, 'not_found', 'Object not found');
    res.writeHead(200, {
      'Content-Type': object.metadata.mimetype ?? 'application/octet-stream',
      'Content-Length': String(bytes.length),
      'Cache-Control': object.metadata.cacheControl ?? 'max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(bytes);
  }

  const SELECT_OBJECT = 'select content, metadata from storage.objects where bucket_id = $1 and name = $2';

  /** Whether a request may come without an API key: a public object, as an <img> fetches it. */
  const isPublicRead = (method: string | undefined, path: string) =>
    method === 'GET' && path.startsWith('/object/public/');

  async function json(req: IncomingMessage): Promise<Record<string, unknown>> {
    const text = (await readLimited(req, 1_000_000)).toString('utf8');
    try {
      return text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw storageError(400, 'Invalid Input', 'Empty or invalid json');
    }
  }

  const bucketIn = (m: RegExpExecArray) => splitPath(m[1]!).bucket;

  async function handle(req: IncomingMessage, res: ServerResponse, path: string, who: RequestIdentity) {
    let m: RegExpExecArray | null;
    if (isPublicRead(req.method, path)) {
      const { bucket, name } = splitPath(path.slice('/object/public/'.length));
      if (!(await bucketOf(db, bucket)).public) throw storageError(400, 'Bucket not public', 'Bucket not found');
      return download(res, await db.query<Stored>(SELECT_OBJECT, [bucket, name]));
    }
    if (req.method === 'POST' && (m = /^\/object\/list\/([^/]+)$/.exec(path)))
      return list(req, res, who, bucketIn(m), path, await json(req));
    if (req.method === 'DELETE' && (m = /^\/object\/([^/]+)$/.exec(path)))
      return remove(req, res, who, bucketIn(m), path, await json(req));
    if ((req.method === 'POST' || req.method === 'PUT') && (m = /^\/object\/(.+)$/.exec(path)))
      return upload(req, res, who, m[1]!, path);
    if (req.method === 'GET' && (m = /^\/object\/(?:authenticated\/)?(.+)$/.exec(path))) {
      const { bucket, name } = splitPath(m[1]!);
      await bucketOf(db, bucket);
      return download(res, await asCaller(db, who, req, path, (tx) => tx.query<Stored>(SELECT_OBJECT, [bucket, name])));
    }
    throw storageError(
      404,
      'not_found',
      `${req.method} /storage/v1${path} is not supported by the RepX storage server.`,
    );
  }

  return { handle, isPublicRead };
}
