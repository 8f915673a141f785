/**
 * @jest-environment node
 */
import { parse } from 'csv-parse/sync';
import { extractText } from 'unpdf';
import type { Statement } from '@repex/shared-ui/contracts';
import { statementCsv } from './statementCsv';
import { statementPdf } from './statementPdf';
import { monthDays } from './useStatementForm';

const statement: Statement = {
  from: '2026-11-01',
  to: '2026-11-30',
  holder: { name: '=Demo, "the" User', username: 'demo' },
  opening_cash: 100,
  closing_cash: 1283.5,
  deposits: 2000,
  withdrawals: 300,
  bought: 510,
  sold: 0,
  fees: 6.5,
  fee_share: 0,
  realized: 12.5,
  positions_value: 550,
  movements: [
    {
      at: '2026-11-02T10:00:00Z',
      type: 'Deposit',
      description: 'Card •••• 4242',
      status: 'Completed',
      amount: 2000,
      effect: 2000,
    },
    {
      at: '2026-11-03T10:00:00Z',
      type: 'Withdrawal',
      description: 'Checking',
      status: 'Completed',
      amount: -300,
      effect: -300,
    },
  ],
  trades: [
    {
      at: '2026-11-04T10:00:00Z',
      side: 'buy',
      token: 'Sarah Chen',
      tokens: 10,
      price: 50,
      value: 500,
      fee: 10,
      total: 510,
      liquidity: 'taker',
    },
  ],
  positions: [{ token: 'Sarah Chen', tokens: 10, price: 55, value: 550 }],
  lots: [],
};

describe('a statement file', () => {
  it('is a CSV of sections whose amounts are numbers and whose text cannot run as a formula', () => {
    const rows = parse(statementCsv(statement), { relax_column_count: true, bom: true }) as string[][];
    expect(rows[0]).toEqual(['RepX statement', '2026-11-01 to 2026-11-30 (UTC)']);
    expect(rows[1]).toEqual(['Account', `'=Demo, "the" User (@demo)`]);
    const at = (title: string) => rows.findIndex((r) => r[0] === title);
    expect(rows.slice(at('Summary') + 2, at('Summary') + 12)).toEqual([
      ['Opening cash', '100.00'],
      ['Deposits', '2000.00'],
      ['Withdrawals', '-300.00'],
      ['Tokens bought', '-510.00'],
      ['Tokens sold', '0.00'],
      ['Trading fees', '-6.50'],
      ['Fee share received', '0.00'],
      ['Closing cash', '1283.50'],
      ['Positions at the close', '550.00'],
      ['Realized gain (first in, first out)', '12.50'],
    ]);
    expect(rows[at('Trades') + 2]).toEqual([
      '2026-11-04T10:00:00Z',
      'buy (taker)',
      'Sarah Chen',
      '10',
      '50.00',
      '500.00',
      '10.00',
      '510.00',
    ]);
    expect(rows[at('Realized gains by lot (first in, first out)') + 1]![0]).toBe('Token');
  });

  it('is a PDF that says the same', async () => {
    const { text } = await extractText(new Uint8Array(await statementPdf(statement)), { mergePages: true });
    for (const words of [
      'RepX Statement',
      'Nov 1, 2026 to Nov 30, 2026',
      'Closing cash',
      '$1,283.50',
      'Sarah Chen',
      '$510.00',
      'None in this period.',
    ])
      expect(text).toContain(words);
  });

  it("makes a month's days, up to today while it runs", () => {
    expect(monthDays('2027-02', '2027-06-01')).toEqual({ from: '2027-02-01', to: '2027-02-28' });
    expect(monthDays('2026-11', '2026-11-26')).toEqual({ from: '2026-11-01', to: '2026-11-26' });
  });
});
