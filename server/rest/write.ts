import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import { readJson, sendEmpty, sendJson } from '../http/io';
import type { RestContext } from './context';
import type { Relation } from './catalog';
import { restError } from './errors';
import { parseSelect } from './parse';
import { SINGLE_OBJECT, prefer, readShape, singleOrThrow } from './shape';
import { Params, ident, projection, qualified } from './sql';

/** POST (insert, upsert), PATCH and DELETE of a table, returning the representation when asked. */
export async function write(
  ctx: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  who: RequestIdentity,
  rel: Relation,
  url: URL,
) {
  const params = new Params();
  const prefs = prefer(req);
  const representation = prefs.get('return') === 'representation';
  const catalog = ctx.getCatalog();
  let statement: string;
  if (req.method === 'POST') {
    const body = await readJson(req);
    const rows = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : null;
    if (!rows) throw restError(400, 'PGRST102', 'Empty or invalid json');
    const listed = url.searchParams.get('columns');
    const columns = listed
      ? listed.split(',').map((c) => c.replace(/^"|"$/g, ''))
      : [...new Set(rows.flatMap((r) => Object.keys(r as object)))];
    for (const c of columns) {
      if (!rel.columns.has(c))
        throw restError(400, 'PGRST204', `Could not find the '${c}' column of '${rel.name}' in the schema cache`);
    }
    const list = columns.map(ident).join(', ');
    let conflict = '';
    const resolution = prefs.get('resolution');
    if (resolution) {
      const target = url.searchParams.get('on_conflict')?.split(',') ?? rel.primaryKey;
      const updates = columns.filter((c) => !target.includes(c)).map((c) => `${ident(c)} = excluded.${ident(c)}`);
      conflict = ` on conflict (${target.map(ident).join(', ')}) ${
        resolution === 'ignore-duplicates' || !updates.length ? 'do nothing' : `do update set ${updates.join(', ')}`
      }`;
    }
    // Rows of {} take every column's default, as PostgREST does (no column list at all).
    statement = `insert into ${qualified(rel.name)}${list ? ` (${list})` : ''}
      select ${list} from json_populate_recordset(null::${qualified(rel.name)}, ${params.add(JSON.stringify(rows), 'json')})${conflict}
      returning *`;
  } else {
    const shape = readShape(rel, url, params);
    if (!shape.where) {
      throw restError(400, '21000', `${req.method === 'PATCH' ? 'UPDATE' : 'DELETE'} requires a WHERE clause`);
    }
    if (req.method === 'PATCH') {
      const body = await readJson(req);
      if (!body || typeof body !== 'object' || Array.isArray(body))
        throw restError(400, 'PGRST102', 'Empty or invalid json');
      const columns = Object.keys(body);
      if (!columns.length) throw restError(400, 'PGRST102', 'An update needs at least one column to change.');
      for (const c of columns) {
        if (!rel.columns.has(c))
          throw restError(400, 'PGRST204', `Could not find the '${c}' column of '${rel.name}' in the schema cache`);
      }
      const sets = columns.map((c) => `${ident(c)} = _v.${ident(c)}`).join(', ');
      statement = `update ${qualified(rel.name)} t0 set ${sets}
        from json_populate_record(null::${qualified(rel.name)}, ${params.add(JSON.stringify(body), 'json')}) _v${shape.where} returning t0.*`;
    } else {
      statement = `delete from ${qualified(rel.name)} t0${shape.where} returning t0.*`;
    }
  }
  const cols = projection(catalog, rel, 't0', parseSelect(url.searchParams.get('select') ?? '*'));
  const text = `with _m as (${statement}) select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n
       from (select ${cols} from _m t0) _r`;
  type Answer = { body: string; n: number };
  // A .single() write that touched other than one row is rolled back, as PostgREST does: that one
  // decides between commit and rollback, so it holds its transaction open; any other write is one round trip.
  const answer =
    representation && String(req.headers.accept ?? '').includes(SINGLE_OBJECT)
      ? await ctx.run(who, req, url.pathname, false, async (tx) => {
          const [row] = await tx.query<Answer>(text, params.values);
          singleOrThrow(req, row!.body, row!.n);
          return row!;
        })
      : ((await ctx.pipeline(who, req, url.pathname, false, [{ text, values: params.values }]))[0]![0] as Answer);
  const result = { body: representation ? singleOrThrow(req, answer.body, answer.n) : '', n: answer.n };
  const status = req.method === 'POST' ? 201 : representation ? 200 : 204;
  const headers = { 'Content-Range': `*/${result.n}` };
  if (!representation) return sendEmpty(res, status, headers);
  sendJson(res, status, result.body, headers);
}
