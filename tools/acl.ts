import type { Queryable } from '../server/db/database';
import { quoteIdent } from '../server/db/quote';

const PRIVILEGES: Record<string, string> = {
  r: 'select',
  a: 'insert',
  w: 'update',
  d: 'delete',
  D: 'truncate',
  x: 'references',
  t: 'trigger',
  X: 'execute',
  U: 'usage',
  C: 'create',
};
/**
 * MAINTAIN (PostgreSQL 17) is left to each engine's defaults: naming it would make a migration
 * written on PGlite (PostgreSQL 18) fail on an older server.
 */
const ENGINE_SPECIFIC = new Set(['m']);
const OWNERS = new Set(['postgres', 'pg_database_owner', 'supabase_admin']);

type Acl = Map<string, Set<string>>;

function parse(acl: string): Acl {
  const out: Acl = new Map();
  for (const item of acl.split(',').filter(Boolean)) {
    const [grantee, rest] = item.split('=') as [string, string];
    const who = grantee === '' ? 'public' : grantee;
    if (OWNERS.has(who)) continue;
    out.set(who, new Set([...rest.split('/')[0]!].filter((p) => PRIVILEGES[p])));
  }
  return out;
}

/**
 * The grants and revokes that take an object's privileges from `before` to `after` (aclitem
 * lists, as the catalog prints them), grantee by grantee, naming only what changes: so that a
 * migration means the same on every engine. A grantee losing everything is `revoke all`.
 */
/** How GRANT names each kind: a view is a table to it, and `routine` covers functions and procedures. */
const ACL_OBJECT: Record<string, string> = { view: 'table', function: 'routine' };

export function aclChange(kind: string, name: string, before: string, after: string): string {
  const [was, now] = [parse(before), parse(after)];
  const columnOf = kind === 'column' ? name.slice(name.lastIndexOf('.') + 1) : null;
  const on = columnOf
    ? (privs: string) => `${privs} (${quoteIdent(columnOf)}) on ${name.slice(0, name.lastIndexOf('.'))}`
    : (privs: string) => `${privs} on ${ACL_OBJECT[kind] ?? kind} ${name}`;
  const words = (privs: string[]) => privs.map((p) => PRIVILEGES[p]).join(', ');
  const out: string[] = [];
  for (const who of new Set([...was.keys(), ...now.keys()])) {
    const had = was.get(who) ?? new Set<string>();
    const has = now.get(who) ?? new Set<string>();
    const removed = [...had].filter((p) => !has.has(p) && !ENGINE_SPECIFIC.has(p));
    const added = [...has].filter((p) => !had.has(p) && !ENGINE_SPECIFIC.has(p));
    if (removed.length && ![...has].some((p) => !ENGINE_SPECIFIC.has(p))) out.push(`revoke ${on('all')} from ${who};`);
    else if (removed.length) out.push(`revoke ${on(words(removed))} from ${who};`);
    if (added.length) out.push(`grant ${on(words(added))} to ${who};`);
  }
  return out.join('\n');
}

/**
 * What a new object's privileges are when it is created in `schema`: PostgreSQL's defaults for
 * its kind and owner, with the schema's default privileges added, as the catalog prints them.
 */
export async function creationAcl(db: Queryable, kind: string, schema: string): Promise<string> {
  const type = kind === 'function' ? 'f' : kind === 'sequence' ? 'S' : kind === 'schema' ? 'n' : 'r';
  const [row] = await db.query<{ acl: string }>(
    `select array_to_string(array(
       select unnest(acldefault($1::"char", (select oid from pg_roles where rolname = current_user)))::text
       union
       select unnest(d.defaclacl)::text from pg_default_acl d
        where d.defaclnamespace = (select oid from pg_namespace where nspname = $2) and d.defaclobjtype = $1::"char"), ',') as acl`,
    [type, schema],
  );
  return row?.acl ?? '';
}
