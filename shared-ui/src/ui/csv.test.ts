import { toCsv } from './csv';

describe('toCsv', () => {
  it('writes a header row and CRLF-ended records, quoting only what needs it', () => {
    expect(
      toCsv(
        ['Type', 'Amount'],
        [
          ['Deposit', 1000],
          ['Buy', -12.5],
        ],
      ),
    ).toBe('Type,Amount\r\nDeposit,1000\r\nBuy,-12.5\r\n');
  });

  it('quotes commas, quotes and line breaks, doubling quotes; empty for null', () => {
    expect(toCsv(['a', 'b', 'c', 'd'], [['Sell 1, at $2', 'say "hi"', 'two\nlines', null]])).toBe(
      'a,b,c,d\r\n"Sell 1, at $2","say ""hi""","two\nlines",\r\n',
    );
  });
});
