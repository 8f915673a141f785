type Row = Record<string, unknown>;
/** How a column's text is read into a value, by the column's type (each engine has its own parsers). */
export type TypeParsers = (typeId: number) => (text: string) => unknown;

/** A column of a RowDescription, as both engines' protocol parsers give it. */
export interface Field {
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
