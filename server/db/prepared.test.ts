import { PreparedStatements } from './prepared';

/** The protocol messages in a buffer, as (type letter, statement name) for Parse, Bind and Close. */
function named(buffer: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; at < buffer.length;) {
    const type = String.fromCharCode(buffer[at]!);
    const length = buffer.readInt32BE(at + 1);
    const body = buffer.subarray(at + 5, at + 1 + length);
    const cString = (from: number) => body.subarray(from, body.indexOf(0, from)).toString();
    if (type === 'P') out.push(`parse ${cString(0)}`);
    else if (type === 'B')
      out.push(`bind ${cString(cString(0).length + 1)}`); // portal name, then statement name
    else if (type === 'C') out.push(`close ${cString(1)}`); // 'S' for statement, then its name
    at += 1 + length;
  }
  return out;
}

const statement = (text: string) => ({ text, values: [] });

describe('a connection’s prepared statements', () => {
  it('parses a text once, then binds it by name', () => {
    const prepared = new PreparedStatements('s');
    expect(named(prepared.messages([statement('select 1'), statement('select 2')], true))).toEqual([
      'parse s1',
      'bind s1',
      'parse s2',
      'bind s2',
    ]);
    expect(named(prepared.messages([statement('select 2'), statement('select 1')], true))).toEqual([
      'bind s2',
      'bind s1',
    ]);
  });

  it('closes the least recently used beyond its capacity, before the next statements', () => {
    const prepared = new PreparedStatements('s', 2);
    prepared.messages([statement('a'), statement('b')], true);
    prepared.messages([statement('a')], true); // b is now the least recently used
    expect(named(prepared.messages([statement('c')], true))).toEqual(['parse s3', 'bind s3']);
    expect(named(prepared.messages([statement('a')], true))).toEqual(['close s2', 'bind s1']);
    expect(named(prepared.messages([statement('b')], true))).toEqual(['parse s4', 'bind s4']);
  });

  it('after a failed pipeline, closes its statements and parses them afresh', () => {
    const prepared = new PreparedStatements('s');
    prepared.messages([statement('kept')], true);
    const failing = [statement('kept'), statement('new')];
    prepared.messages(failing, true);
    prepared.failed(failing);
    expect(named(prepared.messages(failing, true))).toEqual([
      'close s1',
      'close s2',
      'parse s3',
      'bind s3',
      'parse s4',
      'bind s4',
    ]);
  });

  it('behind a transaction-mode pooler, names nothing: each statement is parsed unnamed and bound', () => {
    const prepared = new PreparedStatements('s', 0);
    const twice = [statement('select 1'), statement('select 1')];
    expect(named(prepared.messages(twice, true))).toEqual(['parse ', 'bind ', 'parse ', 'bind ']);
    expect(named(prepared.messages(twice, true))).toEqual(['parse ', 'bind ', 'parse ', 'bind ']);
  });
});
