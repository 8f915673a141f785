import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import type { Database } from '../db/database';
import { sendJson } from '../http/io';
import { asCaller, bucketOf, plainKey, storageError } from './context';
import type { ObjectBytes } from './objects';

type Entry = Record<string, unknown> & { name: string };

/** One level under the prefix: its files, and its folders (the first segment of deeper names). */
function level(objects: Entry[], prefix: string): Entry[] {
  const entries = new Map<string, Entry>();
  for (const o of objects) {
    const rel = prefix ? o.name.slice(prefix.length + 1) : o.name;
    const slash = rel.indexOf('/');
    if (slash < 0) entries.set(`f:${rel}`, { ...o, name: rel });
    else {
      const name = rel.slice(0, slash);
      entries.set(`d:${name}`, {
        name,
        id: null,
        created_at: null,
        updated_at: null,
        last_accessed_at: null,
        metadata: null,
      });
    }
  }
  return [...entries.values()];
}

/** list (limit 100 and sorted by name by default) and remove, as the caller. */
export function listing(db: Database, bytesStore: ObjectBytes) {
  async function list(
    req: IncomingMessage,
    res: ServerResponse,
    who: RequestIdentity,
    bucketId: string,
    path: string,
    body: Record<string, unknown>,
  ) {
    const prefix = plainKey(String(body.prefix ?? '')).replace(/^\/+|\/+$/g, '');
    const limit = Math.min(Math.max(Number(body.limit ?? 100) || 100, 1), 1000);
    const offset = Math.max(Number(body.offset ?? 0) || 0, 0);
    const sort = (body.sortBy ?? {}) as { column?: string; order?: string };
    const column = ['name', 'created_at', 'updated_at', 'last_accessed_at'].includes(sort.column ?? '')
      ? sort.column!
      : 'name';
    const order = sort.order === 'desc' ? 'desc' : 'asc';
    const search = plainKey(String(body.search ?? '')).toLowerCase();
    await bucketOf(db, bucketId);
    const objects = await asCaller(db, who, req, path, (tx) =>
      tx.query<Entry>(
        `select name, id, created_at, updated_at, last_accessed_at, metadata - 'blob' as metadata from storage.objects
          where bucket_id = $1 and ($2 = '' or name like $2 || '/%')`,
        [bucketId, prefix],
      ),
    );
    const sorted = level(objects, prefix)
      .filter((e) => !search || e.name.toLowerCase().includes(search))
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
    const prefixes = Array.isArray(body.prefixes) ? body.prefixes.map((p) => plainKey(String(p))) : [];
    if (!prefixes.length || prefixes.length > 1000)
      throw storageError(400, 'Invalid Input', 'Name 1 to 1,000 objects to remove.');
    const rows = await asCaller(db, who, req, path, (tx) =>
      tx.query<Record<string, unknown> & { metadata: { blob?: string } | null }>(
        `delete from storage.objects where bucket_id = $1 and name = any($2::text[])
         returning id, name, bucket_id, owner, metadata, created_at, updated_at, last_accessed_at`,
        [bucketId, prefixes],
      ),
    );
    await bytesStore.remove(rows.flatMap((r) => (r.metadata?.blob ? [r.metadata.blob] : [])));
    sendJson(
      res,
      200,
      rows.map((r) => ({ ...r, metadata: r.metadata ? { ...r.metadata, blob: undefined } : r.metadata })),
    );
  }

  return { list, remove };
}
