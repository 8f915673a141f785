import type { IncomingMessage, ServerResponse } from 'node:http';
import { becomeCaller, httpContext, type RequestIdentity } from '../db/caller';
import { isPgError, type Database, type Queryable } from '../db/database';
import { HttpError, sendJson } from '../http/io';

/**
 * The subset of Supabase Storage that supabase-js's storage client uses: upload (POST, with
 * x-upsert) and update (PUT), download, public URLs, list (limit 100 and sorted by name by default)
 * and remove. Each call runs as the caller, so the policies on storage.objects decide who reads and
 * writes what; the bucket's size and type limits are checked here, as the storage server does.
 */
interface Bucket {
  id: string;
  public: boolean;
  file_size_limit: string | null;
  allowed_mime_types: string[] | null;
}

/** Supabase Storage's error shape: statusCode (as text), error, message. */
const storageError = (status: number, error: string, message: string) =>
  new HttpError(status, { statusCode: String(status), error, message });

const MAX_UPLOAD_BYTES = 50 * 1024 * 1024; // no bucket may allow more

/** The first bytes of each image type a bucket may allow: a file is what its bytes say. */
const SIGNATURES: [string, (b: Buffer) => boolean][] = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  [
    'image/webp',
    (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  ],
];
const sniff = (bytes: Buffer) => SIGNATURES.find(([, test]) => test(bytes))?.[0];

async function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw storageError(413, 'Payload too large', 'The object exceeded the maximum allowed size');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw storageError(413, 'Payload too large', 'The object exceeded the maximum allowed size');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The file of an upload: the raw body, or the file part of a multipart form (what a browser sends). */
async function fileOf(req: IncomingMessage, body: Buffer): Promise<{ bytes: Buffer; type: string }> {
  const type = String(req.headers['content-type'] ?? 'application/octet-stream');
  if (!type.startsWith('multipart/form-data')) return { bytes: body, type: type.split(';')[0]!.trim() };
  const form = await new Request('http://local/', {
    method: 'POST',
    headers: { 'content-type': type },
    body: new Uint8Array(body),
  }).formData();
  for (const value of form.values()) {
    if (typeof value !== 'string')
      return { bytes: Buffer.from(await value.arrayBuffer()), type: value.type || 'application/octet-stream' };
  }
  throw storageError(400, 'Invalid Input', 'The upload has no file.');
}

const splitPath = (rest: string) => {
  const [bucket, ...parts] = rest.split('/').map(decodeURIComponent);
  return { bucket: bucket ?? '', name: parts.join('/') };
};

export function storageRoutes(db: Database) {
  async function bucketOf(tx: Queryable, id: string): Promise<Bucket> {
    const [bucket] = await tx.query<Bucket>(
      'select id, public, file_size_limit::text, allowed_mime_types from storage.buckets where id = $1',
      [id],
    );
    if (!bucket) throw storageError(404, 'Bucket not found', 'Bucket not found');
    return bucket;
  }

  /** Runs `fn` as the caller; policy refusals become Storage's 403. */
  async function asCaller<T>(
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
      throw error;
    }
  }

  async function upload(req: IncomingMessage, res: ServerResponse, who: RequestIdentity, rest: string, path: string) {
    const { bucket: bucketId, name } = splitPath(rest);
    if (!name || name.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      throw storageError(400, 'Invalid Key', `Invalid key: ${name}`);
    }
    const bucket = await bucketOf(db, bucketId);
    const limit = Math.min(Number(bucket.file_size_limit ?? MAX_UPLOAD_BYTES), MAX_UPLOAD_BYTES);
    const { bytes, type } = await fileOf(req, await readLimited(req, limit + 64 * 1024));
    if (bytes.length > limit)
      throw storageError(413, 'Payload too large', 'The object exceeded the maximum allowed size');
    if (bucket.allowed_mime_types?.length) {
      const actual = sniff(bytes);
      if (!bucket.allowed_mime_types.includes(type) || actual !== type) {
        throw storageError(415, 'invalid_mime_type', `mime type ${actual ?? type} is not supported`);
      }
    }
    const upsert = req.method === 'PUT' || req.headers['x-upsert'] === 'true';
    const metadata = {
      mimetype: type,
      size: bytes.length,
      cacheControl: String(req.headers['cache-control'] ?? 'max-age=3600'),
    };
    const row = await asCaller(who, req, path, async (tx) => {
      const owner = typeof who.claims.sub === 'string' ? who.claims.sub : null;
      if (req.method === 'PUT') {
        const [updated] = await tx.query<{ id: string }>(
          `update storage.objects set content = $3, metadata = $4, owner = $5, updated_at = now() where bucket_id = $1 and name = $2 returning id`,
          [bucketId, name, bytes, metadata, owner],
        );
        if (!updated) throw storageError(404, 'not_found', 'Object not found');
        return updated;
      }
      const [inserted] = await tx.query<{ id: string }>(
        `insert into storage.objects (bucket_id, name, owner, metadata, content) values ($1, $2, $3, $4, $5)
         on conflict (bucket_id, name) do ${upsert ? 'update set content = excluded.content, metadata = excluded.metadata, owner = excluded.owner, updated_at = now()' : 'nothing'}
         returning id`,
        [bucketId, name, owner, metadata, bytes],
      );
      if (!inserted) throw storageError(409, 'Duplicate', 'The resource already exists');
      return inserted;
    });
    sendJson(res, 200, { Id: row.id, Key: `${bucketId}/${name}` });
  }

  async function download(
    res: ServerResponse,
    rows: { content: Buffer; metadata: { mimetype?: string; cacheControl?: string } }[],
  ) {
    const [object] = rows;
    if (!object) throw storageError(404, 'not_found', 'Object not found');
    res.writeHead(200, {
      'Content-Type': object.metadata.mimetype ?? 'application/octet-stream',
      'Content-Length': String(object.content.length),
      'Cache-Control': object.metadata.cacheControl ?? 'max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(object.content);
  }

  async function list(
    req: IncomingMessage,
    res: ServerResponse,
    who: RequestIdentity,
    bucketId: string,
    path: string,
    body: Record<string, unknown>,
  ) {
    const prefix = String(body.prefix ?? '').replace(/^\/+|\/+$/g, '');
    const limit = Math.min(Math.max(Number(body.limit ?? 100) || 100, 1), 1000);
    const offset = Math.max(Number(body.offset ?? 0) || 0, 0);
    const sort = (body.sortBy ?? {}) as { column?: string; order?: string };
    const column = ['name', 'created_at', 'updated_at', 'last_accessed_at'].includes(sort.column ?? '')
      ? sort.column!
      : 'name';
    const order = sort.order === 'desc' ? 'desc' : 'asc';
    const search = String(body.search ?? '');
    await bucketOf(db, bucketId);
    const objects = await asCaller(who, req, path, (tx) =>
      tx.query<Record<string, unknown> & { name: string }>(
        `select name, id, created_at, updated_at, last_accessed_at, metadata from storage.objects
        where bucket_id = $1 and ($2 = '' or name like $2 || '/%')`,
        [bucketId, prefix],
      ),
    );
    // One level under the prefix: its files, and its folders (the first segment of deeper names).
    const entries = new Map<string, Record<string, unknown>>();
    for (const o of objects) {
      const rel = prefix ? o.name.slice(prefix.length + 1) : o.name;
      const slash = rel.indexOf('/');
      if (slash < 0) entries.set(`f:${rel}`, { ...o, name: rel });
      else
        entries.set(`d:${rel.slice(0, slash)}`, {
          name: rel.slice(0, slash),
          id: null,
          created_at: null,
          updated_at: null,
          last_accessed_at: null,
          metadata: null,
        });
    }
    const sorted = [...entries.values()]
      .filter((e) => !search || String(e.name).toLowerCase().includes(search.toLowerCase()))
      .sort((a, b) => {
        const x = String(a[column] ?? '');
        const y = String(b[column] ?? '');
        return order === 'asc' ? x.localeCompare(y) : y.localeCompare(x);
      });
    sendJson(res, 200, sorted.slice(offset, offset + limit));
  }

  async function remove(
    req: IncomingMessage,
    res: ServerResponse,
    who: RequestIdentity,
    bucketId: string,
    path: string,
    body: Record<string, unknown>,
  ) {
    const prefixes = Array.isArray(body.prefixes) ? body.prefixes.map(String) : [];
    if (!prefixes.length || prefixes.length > 1000)
      throw storageError(400, 'Invalid Input', 'Name 1 to 1,000 objects to remove.');
    const rows = await asCaller(who, req, path, (tx) =>
      tx.query(
        `delete from storage.objects where bucket_id = $1 and name = any($2::text[])
       returning id, name, bucket_id, owner, metadata, created_at, updated_at, last_accessed_at`,
        [bucketId, prefixes],
      ),
    );
    sendJson(res, 200, rows);
  }

  /** Whether a request may come without an API key: a public object, as an <img> fetches it. */
  const isPublicRead = (method: string | undefined, path: string) =>
    method === 'GET' && path.startsWith('/object/public/');

  async function handle(req: IncomingMessage, res: ServerResponse, path: string, who: RequestIdentity) {
    const json = async (): Promise<Record<string, unknown>> => {
      const text = (await readLimited(req, 1_000_000)).toString('utf8');
      try {
        return text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        throw storageError(400, 'Invalid Input', 'Empty or invalid json');
      }
    };
    let m: RegExpExecArray | null;
    if (isPublicRead(req.method, path)) {
      const { bucket, name } = splitPath(path.slice('/object/public/'.length));
      const b = await bucketOf(db, bucket);
      if (!b.public) throw storageError(400, 'Bucket not public', 'Bucket not found');
      return download(
        res,
        await db.query('select content, metadata from storage.objects where bucket_id = $1 and name = $2', [
          bucket,
          name,
        ]),
      );
    }
    if (req.method === 'POST' && (m = /^\/object\/list\/([^/]+)$/.exec(path)))
      return list(req, res, who, decodeURIComponent(m[1]!), path, await json());
    if (req.method === 'DELETE' && (m = /^\/object\/([^/]+)$/.exec(path)))
      return remove(req, res, who, decodeURIComponent(m[1]!), path, await json());
    if ((req.method === 'POST' || req.method === 'PUT') && (m = /^\/object\/(.+)$/.exec(path)))
      return upload(req, res, who, m[1]!, path);
    if (req.method === 'GET' && (m = /^\/object\/(?:authenticated\/)?(.+)$/.exec(path))) {
      const { bucket, name } = splitPath(m[1]!);
      await bucketOf(db, bucket);
      return download(
        res,
        await asCaller(who, req, path, (tx) =>
          tx.query('select content, metadata from storage.objects where bucket_id = $1 and name = $2', [bucket, name]),
        ),
      );
    }
    throw storageError(
      404,
      'not_found',
      `${req.method} /storage/v1${path} is not supported by the RepX storage server.`,
    );
  }

  return { handle, isPublicRead };
}
