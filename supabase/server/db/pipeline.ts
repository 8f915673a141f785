import { serialize } from 'pg-protocol';
import type { Statement } from './database';

type Row = Record<string, unknown>;
/** How a column's text is read into a value, by the column's type (each engine has its own parsers). */
export type TypeParsers = (typeId: number) => (text: string) => unknown;

/** A parameter as the text the database casts (JSON for objects, as node-postgres sends them). */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The protocol messages of a pipeline, as one buffer: Parse, Bind, Describe and Execute for each
 * statement (unnamed, text format), then the Sync that ends the implicit transaction when `sync`.
 */
export function pipelineMessages(statements: Statement[], sync: boolean): Buffer {
  const messages: Buffer[] = [];
  for (const { text, values } of statements) {
    messages.push(
      serialize.parse({ text }),
      serialize.bind({ values: values.map(asText) }),
      serialize.describe({ type: 'P' }),
      serialize.execute(),
    );
  }
  if (sync) messages.push(serialize.sync());
  return Buffer.concat(messages);
}

interface Field {
  name: string;
  dataTypeID: number;
}

/**
 * Collects the answers of a pipeline as they arrive: each statement's rows in order, or the first
 * error, marked with the index of the statement that raised it.
 */
export class PipelineResults {
  readonly rows: Row[][] = [];
  error: (Error & { statement?: number }) | undefined;
  private current: Row[] = [];
  private columns: { name: string; parse: (text: string) => unknown }[] = [];

  constructor(private readonly parsers: TypeParsers) {}

  rowDescription(fields: Field[]) {
    this.columns = fields.map((f) => ({ name: f.name, parse: this.parsers(f.dataTypeID) }));
  }

  dataRow(values: (string | null)[]) {
    const row: Row = {};
    this.columns.forEach((c, i) => {
      const text = values[i];
      row[c.name] = text === null || text === undefined ? null : c.parse(text);
    });
    this.current.push(row);
  }

  /** CommandComplete or EmptyQueryResponse: the statement's rows are all here. */
  complete() {
    this.rows.push(this.current);
    this.current = [];
    this.columns = [];
  }

  fail(error: Error) {
    this.error ??= Object.assign(error, { statement: this.rows.length });
  }
}
