/** @jest-environment node */
import { PGlite } from '@electric-sql/pglite';
import { ProtocolParser, exclusively } from './pgliteInternals';

// PGlite's WebAssembly starts in a second or two; one instance serves the file.
let db: PGlite;
beforeAll(async () => {
  db = new PGlite();
  await db.waitReady;
}, 60_000);
afterAll(() => db.close());

describe("PGlite's private locks", () => {
  it('exist where the server calls them', () => {
    expect(typeof db._runExclusiveTransaction).toBe('function');
    expect(typeof db._runExclusiveQuery).toBe('function');
  });

  it('keep a query and a transaction out until the exclusive section is done', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = exclusively(db, async () => {
      order.push('section starts');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('section ends');
    });
    await new Promise((r) => setTimeout(r, 20));
    const query = db.query('select 1').then(() => order.push('query'));
    const transaction = db.transaction(async (tx) => tx.query('select 1')).then(() => order.push('transaction'));
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual(['section starts']);
    release();
    await Promise.all([held, query, transaction]);
    expect(order.slice(0, 2)).toEqual(['section starts', 'section ends']);
    expect(order).toHaveLength(4);
  });

  it('return what the section returns, and pass on what it throws', async () => {
    await expect(exclusively(db, async () => 42)).resolves.toBe(42);
    await expect(
      exclusively(db, async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await db.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });
});

describe("pg-protocol's parser, from its dist", () => {
  it("parses PGlite's raw answer into node-postgres's messages, in chunks of any size", async () => {
    const messages: { name: string; fields?: unknown[] }[] = [];
    const parser = new ProtocolParser();
    // A simple query, as its bytes: 'Q', length, text.
    const text = Buffer.from('select 7 as n\0');
    const length = Buffer.alloc(4);
    length.writeInt32BE(text.length + 4);
    const answer = await exclusively(db, () =>
      db.execProtocolRaw(new Uint8Array(Buffer.concat([Buffer.from('Q'), length, text]))),
    );
    const bytes = Buffer.from(answer);
    for (let i = 0; i < bytes.length; i += 3)
      parser.parse(bytes.subarray(i, i + 3), (m) => messages.push(m as (typeof messages)[number]));
    expect(messages.map((m) => m.name)).toEqual(['rowDescription', 'dataRow', 'commandComplete', 'readyForQuery']);
    expect(messages[1]!.fields).toEqual(['7']);
  });
});
