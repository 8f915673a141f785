import { stringify } from 'csv-stringify/sync';

/**
 * CSV as RFC 4180 says and spreadsheets open cleanly: a header row, CRLF line ends, fields quoted
 * when they hold a comma, a quote or a line break (quotes doubled), and a UTF-8 byte-order mark so
 * Excel reads accents and symbols right. Written by csv-stringify, whose escape_formulas keeps a
 * cell someone typed (a name, a reason) from running as a formula when a spreadsheet opens the
 * file: text starting with =, +, -, @, a tab or a carriage return gets a leading quote. Numbers
 * are numbers, so a money column's -12.5 stays a number.
 */
export type CsvValue = string | number | boolean | null | undefined | CsvMoney;

/** An amount of money, written with its two decimals and read as a number: `money(-12.5)` is -12.50. */
export interface CsvMoney {
  money: number;
}
export const money = (amount: number): CsvMoney => ({ money: amount });

export function toCsv(header: string[], rows: CsvValue[][]): string {
  return stringify([header, ...rows], {
    escape_formulas: true,
    record_delimiter: 'windows',
    // A lone carriage return would end a record for some readers: such a field is quoted too.
    quoted_match: /[\r\n]/,
    cast: {
      boolean: (value) => String(value),
      // A number is no formula: its minus sign stays.
      object: (value) => ({ value: (value as unknown as CsvMoney).money.toFixed(2), escape_formulas: false }),
    },
  });
}

/** Saves `csv` as a file in the browser. */
export function downloadCsv(filename: string, csv: string): void {
  downloadFile(filename, new Blob(['\uFEFF', csv], { type: 'text/csv;charset=utf-8' }));
}

/** Saves `blob` as a file in the browser, under `filename`. */
export function downloadFile(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
