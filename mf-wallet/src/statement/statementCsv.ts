import type { Statement } from '@repex/shared-ui/contracts';
import { csvMoney as money, toCsv, type CsvValue } from '@repex/shared-ui/ui';

/** A trade's side with the fee that applied, as both files show it: "buy (maker)". */
export const tradeSide = (t: Statement['trades'][number]) => (t.liquidity ? `${t.side} (${t.liquidity})` : t.side);

/** The statement's summary lines, in the order both files show them. */
export function summaryLines(s: Statement): [label: string, amount: number][] {
  return [
    ['Opening cash', s.opening_cash],
    ['Deposits', s.deposits],
    ['Withdrawals', -s.withdrawals],
    ['Tokens bought', -s.bought],
    ['Tokens sold', s.sold],
    ['Trading fees', -s.fees],
    ['Fee share received', s.fee_share],
    ['Closing cash', s.closing_cash],
    ['Positions at the close', s.positions_value],
    ['Realized gain (first in, first out)', s.realized],
  ];
}

/**
 * A statement as one CSV file in sections (summary, cash movements, trades, positions, lots), each
 * a title line, its column names and its rows, a blank line between: what a spreadsheet opens and
 * a reader's eye follows. Amounts are numbers with two decimals; cells are formula-safe (toCsv).
 */
export function statementCsv(s: Statement): string {
  const section = (title: string, columns: string[], rows: CsvValue[][]) => toCsv([title], [columns, ...rows]);
  return [
    toCsv(['RepX statement', `${s.from} to ${s.to} (UTC)`], [['Account', `${s.holder.name} (@${s.holder.username})`]]),
    section(
      'Summary',
      ['Item', 'Amount'],
      summaryLines(s).map(([label, amount]) => [label, money(amount)]),
    ),
    section(
      'Cash movements',
      ['Date', 'Type', 'Description', 'Status', 'Amount', 'Effect on cash'],
      s.movements.map((m) => [m.at, m.type, m.description, m.status, money(m.amount), money(m.effect)]),
    ),
    section(
      'Trades',
      ['Date', 'Side', 'Token', 'Tokens', 'Price', 'Value', 'Fee', 'Total'],
      s.trades.map((t) => [
        t.at,
        tradeSide(t),
        t.token,
        t.tokens,
        money(t.price),
        money(t.value),
        money(t.fee),
        money(t.total),
      ]),
    ),
    section(
      'Positions at the close',
      ['Token', 'Tokens', 'Price', 'Value'],
      s.positions.map((p) => [p.token, p.tokens, money(p.price), money(p.value)]),
    ),
    section(
      'Realized gains by lot (first in, first out)',
      ['Token', 'Bought', 'Sold', 'Tokens', 'Cost', 'Proceeds', 'Fees', 'Gain'],
      s.lots.map((l) => [
        l.token,
        l.bought_at,
        l.sold_at,
        l.tokens,
        money(l.cost),
        money(l.proceeds),
        money(l.fees),
        money(l.gain),
      ]),
    ),
  ].join('\r\n');
}
