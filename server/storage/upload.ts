import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import type { Database } from '../db/database';
import { sendJson } from '../http/io';
import type { RateLimiter } from '../http/rateLimit';
import { asCaller, bucketOf, splitPath, storageError } from './context';
import { cleanImage } from './images';
import type { ObjectBytes } from './objects';

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

export async function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
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
  let form: FormData;
  try {
    form = await new Request('http://local/', {
      method: 'POST',
      headers: { 'content-type': type },
      body: new Uint8Array(body),
    }).formData();
  } catch {
    throw storageError(400, 'Invalid Input', 'The multipart body could not be read.');
  }
  for (const value of form.values()) {
    if (typeof value !== 'string')
      return { bytes: Buffer.from(await value.arrayBuffer()), type: value.type || 'application/octet-stream' };
  }
  throw storageError(400, 'Invalid Input', 'The upload has no file.');
}

/** An upload (POST, with x-upsert) or an update (PUT), as the caller, within the bucket's limits. */
export function uploader(db: Database, bytesStore: ObjectBytes, uploads: RateLimiter) {
  return async function upload(
    req: IncomingMessage,
    res: ServerResponse,
    who: RequestIdentity,
    rest: string,
    path: string,
  ) {
    const { bucket: bucketId, name } = splitPath(rest);
    if (!name || name.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      throw storageError(400, 'Invalid Key', `Invalid key: ${name}`);
    }
    const owner = typeof who.claims.sub === 'string' ? who.claims.sub : null;
    const wait = await uploads.take(owner ?? req.socket.remoteAddress ?? '');
    if (wait > 0) throw storageError(429, 'Too many uploads', `Too many uploads: try again in ${wait} seconds.`);
    const bucket = await bucketOf(db, bucketId);
    const limit = Math.min(Number(bucket.file_size_limit ?? MAX_UPLOAD_BYTES), MAX_UPLOAD_BYTES);
    const upload = await fileOf(req, await readLimited(req, limit + 64 * 1024));
    const type = upload.type;
    if (upload.bytes.length > limit)
      throw storageError(413, 'Payload too large', 'The object exceeded the maximum allowed size');
    if (bucket.allowed_mime_types?.length) {
      const actual = sniff(upload.bytes);
      if (!bucket.allowed_mime_types.includes(type) || actual !== type) {
        throw storageError(415, 'invalid_mime_type', `mime type ${actual ?? type} is not supported`);
      }
    }
    // A bucket of images (the avatars) keeps each one re-encoded, without its metadata.
    const imagesOnly =
      !!bucket.allowed_mime_types?.length && bucket.allowed_mime_types.every((t) => t.startsWith('image/'));
    const bytes = imagesOnly ? await cleanImage(upload.bytes, type) : upload.bytes;
    const blob = bytesStore.inDatabase ? null : await bytesStore.write(bytes);
    const metadata = {
      mimetype: type,
      size: bytes.length,
      cacheControl: String(req.headers['cache-control'] ?? 'max-age=3600'),
      ...(blob ? { blob } : {}),
    };
    const content = blob ? null : bytes;
    const upsert = req.method === 'PUT' || req.headers['x-upsert'] === 'true';
    try {
      const row = await asCaller(db, who, req, path, async (tx) => {
        // The row's previous version, whose blob is removed once this one is in.
        const [before] = await tx.query<{ blob: string | null }>(
          `select metadata ->> 'blob' as blob from storage.objects where bucket_id = $1 and name = $2`,
          [bucketId, name],
        );
        const [written] =
          req.method === 'PUT'
            ? await tx.query<{ id: string }>(
                `update storage.objects set content = $3, metadata = $4, owner = $5, updated_at = now() where bucket_id = $1 and name = $2 returning id`,
                [bucketId, name, content, metadata, owner],
              )
            : await tx.query<{ id: string }>(
                `insert into storage.objects (bucket_id, name, owner, metadata, content) values ($1, $2, $3, $4, $5)
                 on conflict (bucket_id, name) do ${upsert ? 'update set content = excluded.content, metadata = excluded.metadata, owner = excluded.owner, updated_at = now()' : 'nothing'}
                 returning id`,
                [bucketId, name, owner, metadata, content],
              );
        if (!written && req.method === 'PUT') throw storageError(404, 'not_found', 'Object not found');
        if (!written) throw storageError(409, 'Duplicate', 'The resource already exists');
        return { id: written.id, replaced: before?.blob ?? null };
      });
      if (row.replaced) await bytesStore.remove([row.replaced]);
      sendJson(res, 200, { Id: row.id, Key: `${bucketId}/${name}` });
    } catch (error) {
      if (blob) await bytesStore.remove([blob]);
      throw error;
    }
  };
}
