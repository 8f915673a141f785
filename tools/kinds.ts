import type { Queryable } from '../server/db/database';
import { quoteIdent } from '../server/db/quote';
import type { Difference } from './catalog';
import { aclChange, creationAcl } from './acl';
import {
  addColumn,
  alterColumn,
  columnExists,
  columnOrder,
  createPolicy,
  headerOf,
  isTable,
  literal,
  one,
  ownedByIdentity,
  relationKind,
  relationOrder,
  schemaOf,
  splitLast,
  tableFlags,
  viewSource,
} from './reads';

/** The order a migration's statements go in: drops first, then what later statements need. */
export const KIND_ORDER = [
  'drop policy',
  'drop trigger',
  'drop view',
  'drop function',
  'drop constraint',
  'drop index',
  'drop column',
  'drop table',
  'schema',
  'extension',
  'table',
  'column',
  'function',
  'view',
  'constraint',
  'index',
  'trigger',
  'policy',
  'security',
  'grant',
  'comment',
] as const;
export type Step = (typeof KIND_ORDER)[number];

/** What a kind's handler is given: the difference, the object's name, and how to add a statement. */
export interface Change {
  d: Difference;
  name: string;
  rest: string[];
  gone: boolean;
  changed: boolean;
  schemas: Queryable;
  /** The schema files' script the `schemas` database was built from. */
  script: string;
  add: (step: Step, sql: string, order?: number) => void;
  unsupported: string[];
}

async function schema({ d, name, gone, changed, schemas, add }: Change) {
  if (gone) return add('drop table', `drop schema ${name} cascade;`);
  if (!changed) add('schema', `create schema ${name};`);
  add(
    'grant',
    aclChange('schema', name, d.migrations ?? (await creationAcl(schemas, 'schema', name)), d.schemas ?? ''),
  );
}

async function extension({ d, name, gone, add, unsupported }: Change) {
  if (gone) unsupported.push(`${d.key}: drop it by hand if nothing needs it`);
  else add('extension', `create extension if not exists ${name} with schema ${d.schemas};`);
}

async function table({ d, name, gone, changed, schemas, add, unsupported }: Change) {
  if (gone) return add('drop table', `drop table ${name};`);
  if (!changed) add('table', `create table ${name} ();`, await relationOrder(schemas, name));
  add('security', await tableFlags(schemas, name, d, unsupported));
}

async function column({ d, name, gone, changed, schemas, add, unsupported }: Change) {
  const dot = name.lastIndexOf('.');
  const [tableName, columnName] = [name.slice(0, dot), name.slice(dot + 1)];
  const stays = await isTable(schemas, tableName);
  if (gone) {
    if (stays) add('drop column', `alter table ${tableName} drop column ${quoteIdent(columnName)};`);
  } else if (!stays) {
    return; // a view's column comes with the view
  } else if (!changed) {
    add('column', await addColumn(schemas, tableName, columnName), await columnOrder(schemas, tableName, columnName));
  } else {
    add('column', (await alterColumn(schemas, tableName, columnName, d, unsupported)).join('\n'));
  }
}

async function constraint({ d, name, gone, changed, schemas, add }: Change) {
  const [tableName, conname] = splitLast(name);
  // PostgreSQL 18 lists NOT NULL as constraints: the column's own definition makes them.
  if (/^NOT NULL /.test(d.schemas ?? d.migrations ?? '')) return;
  if (gone || changed)
    add('drop constraint', `alter table ${tableName} drop constraint if exists ${quoteIdent(conname)};`);
  if (gone) return;
  const def = await one(
    schemas,
    `select pg_get_constraintdef(oid) as def, contype::text as type from pg_constraint where conrelid = $1::regclass and conname = $2`,
    [tableName, conname],
  );
  // Keys before the foreign keys that reference them.
  add(
    'constraint',
    `alter table ${tableName} add constraint ${quoteIdent(conname)} ${def.def};`,
    def.type === 'f' ? 1 : 0,
  );
}

async function index({ name, gone, changed, schemas, add }: Change) {
  if (!gone) {
    const backed = await one(
      schemas,
      `select exists (select from pg_constraint where conindid = $1::regclass) as backed`,
      [name],
    );
    if (backed.backed) return; // made by its constraint
  }
  if (gone || changed) add('drop index', `drop index if exists ${name};`);
  if (!gone) add('index', `${(await one(schemas, `select pg_get_indexdef($1::regclass) as def`, [name])).def};`);
}

async function sequence({ d, name, gone, schemas, unsupported }: Change) {
  if (!(await ownedByIdentity(schemas, name, gone))) unsupported.push(`${d.key}: ${d.change}`);
}

/**
 * The grants an object re-created by the migration must be given again: dropping it took them, and
 * the grant difference sees none, as the schema files and the migrations agree on them.
 */
async function grantAgain(schemas: Queryable, kind: 'view' | 'function', name: string, add: Change['add']) {
  const { acl } = await one(
    schemas,
    kind === 'view'
      ? `select array_to_string(array(select unnest(coalesce(relacl, acldefault('r', relowner)))::text order by 1), ',') as acl
           from pg_class where oid = $1::regclass`
      : `select array_to_string(array(select unnest(coalesce(proacl, acldefault('f', proowner)))::text order by 1), ',') as acl
           from pg_proc where oid = $1::regprocedure`,
    [name],
  );
  add('grant', aclChange(kind, name, await creationAcl(schemas, kind, schemaOf(name)), acl));
}

/** A routine: DROP ROUTINE takes a function or a procedure alike. */
async function fn({ d, name, gone, changed, schemas, add }: Change) {
  const dropped = gone || (changed && headerOf(d.migrations) !== headerOf(d.schemas));
  if (dropped) add('drop function', `drop routine if exists ${name};`);
  if (gone) return;
  add('function', `${(d.schemas ?? '').trim()};`);
  if (dropped) await grantAgain(schemas, 'function', name, add);
}

async function view({ name, gone, changed, schemas, script, add }: Change) {
  if (gone || changed) add('drop view', `drop view if exists ${name};`);
  if (gone) return;
  const v = await one(
    schemas,
    `select pg_get_viewdef($1::regclass) as def, array_to_string(reloptions, ', ') as options, relkind::text as kind from pg_class where oid = $1::regclass`,
    [name],
  );
  const options = v.options ? ` with (${v.options})` : '';
  const sql =
    (v.kind === 'v' && viewSource(script, name)) ||
    `create ${v.kind === 'm' ? 'materialized view' : 'view'} ${name}${options} as\n${v.def.replace(/;\s*$/, '')};`;
  add('view', sql, await relationOrder(schemas, name));
  if (changed) await grantAgain(schemas, 'view', name, add);
}

async function trigger({ name, gone, changed, schemas, add }: Change) {
  const [tableName, tgname] = splitLast(name);
  if (gone || changed) add('drop trigger', `drop trigger if exists ${quoteIdent(tgname)} on ${tableName};`);
  if (gone) return;
  const t = await one(
    schemas,
    `select pg_get_triggerdef(oid) as def, tgenabled::text as enabled from pg_trigger where tgrelid = $1::regclass and tgname = $2`,
    [tableName, tgname],
  );
  add('trigger', `${t.def};`);
  if (t.enabled === 'D') add('trigger', `alter table ${tableName} disable trigger ${quoteIdent(tgname)};`);
}

async function policy({ name, gone, changed, schemas, add }: Change) {
  const m = /^(.+?) "(.*)"$/.exec(name)!;
  const [tableName, policyName] = [m[1]!, m[2]!];
  if (gone || changed) add('drop policy', `drop policy if exists ${quoteIdent(policyName)} on ${tableName};`);
  if (!gone) add('policy', await createPolicy(schemas, tableName, policyName));
}

/** grant on table|view|sequence|function|column NAME */
async function grant({ d, rest, gone, schemas, add }: Change) {
  const [, objectKind, ...objectName] = rest;
  const object = objectName.join(' ');
  if (gone) {
    // A column's grants taken away while the column stays; any other object took its grants with it.
    if (objectKind === 'column' && (await columnExists(schemas, object)))
      add('grant', aclChange('column', object, d.migrations ?? '', ''));
    return;
  }
  const before =
    d.migrations ?? (objectKind === 'column' ? '' : await creationAcl(schemas, objectKind!, schemaOf(object)));
  add('grant', aclChange(objectKind!, object, before, d.schemas ?? ''));
}

async function comment({ d, rest, gone, schemas, add }: Change) {
  const [, objectKind, ...objectName] = rest;
  const object = objectName.join(' ');
  const target = `${objectKind === 'relation' ? await relationKind(schemas, object) : objectKind} ${object}`;
  add('comment', `comment on ${target} is ${gone ? 'null' : literal(d.schemas ?? '')};`);
}

async function publication({ rest, gone, add }: Change) {
  const [pub, tableName] = rest;
  add('grant', `alter publication ${pub} ${gone ? 'drop' : 'add'} table ${tableName};`);
}

/** Each kind of catalog entry (catalog.ts's first word) and how a difference in it is written. */
export const KINDS: Record<string, (change: Change) => Promise<void>> = {
  schema,
  extension,
  table,
  column,
  constraint,
  index,
  sequence,
  function: fn,
  view,
  trigger,
  policy,
  grant,
  comment,
  publication,
};
