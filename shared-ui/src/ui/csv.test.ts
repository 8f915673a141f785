import { money, toCsv } from './csv';

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

describe('toCsv and formulas', () => {
  it('keeps text that a spreadsheet would run as a formula from running: =, +, -, @, tab and carriage return', () => {
    const csv = toCsv(
      ['Name', 'Reason'],
      [
        ['=HYPERLINK("http://evil.example","click")', '@SUM(1+1)*cmd'],
        ['+1', '-2+3'],
        ['\tpadded', '\rreturn'],
      ],
    );
    expect(csv).toBe(
      'Name,Reason\r\n"\'=HYPERLINK(""http://evil.example"",""click"")",\'@SUM(1+1)*cmd\r\n\'+1,\'-2+3\r\n\'\tpadded,"\'\rreturn"\r\n',
    );
  });

  it('leaves numbers as numbers, a negative amount included, money with its two decimals, and ordinary text as it is', () => {
    expect(
      toCsv(
        ['Type', 'Amount', 'Count', 'Note'],
        [
          ['Withdrawal', money(-12.5), -3, 'Sarah Chen - Tech'],
          ['Deposit', money(1000), 0, true],
        ],
      ),
    ).toBe('Type,Amount,Count,Note\r\nWithdrawal,-12.50,-3,Sarah Chen - Tech\r\nDeposit,1000.00,0,true\r\n');
  });
});
