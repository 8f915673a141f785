/**
 * CSV as RFC 4180 says and spreadsheets open cleanly: a header row, CRLF line ends, fields quoted
 * when they hold a comma, a quote or a line break (quotes doubled), and a UTF-8 byte-order mark so
 * Excel reads accents and symbols right.
 */
export type CsvValue = string | number | boolean | null | undefined;

const field = (v: CsvValue): string => {
  const text = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function toCsv(header: string[], rows: CsvValue[][]): string {
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** Saves `csv` as a file in the browser. */
export function downloadCsv(filename: string, csv: string): void {
  const url = URL.createObjectURL(new Blob(['\uFEFF', csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
