import type { Statement } from '@repex/shared-ui/contracts';
import { formatDate, formatDay, formatInteger, formatPrice, formatSignedPrice } from '@repex/shared-ui/ui';
import { summaryLines, tradeSide } from './statementCsv';

/**
 * A statement as a PDF, drawn with jsPDF and its autoTable plugin (tables that break across pages
 * with their header repeated). Both are fetched only when a PDF is asked for.
 */
export async function statementPdf(s: Statement): Promise<ArrayBuffer> {
  const [{ jsPDF }, { autoTable }] = await Promise.all([import('jspdf'), import('jspdf-autotable')]);
  const doc = new jsPDF({ unit: 'pt', format: 'a4' });
  const left = 40;
  doc.setFont('helvetica', 'bold').setFontSize(18).text('RepX Statement', left, 50);
  doc
    .setFont('helvetica', 'normal')
    .setFontSize(10)
    .text(`${formatDay(s.from)} to ${formatDay(s.to)} (UTC dates)`, left, 68)
    .text(`Account: ${s.holder.name} (@${s.holder.username})`, left, 82);

  let y = 100;
  const table = (title: string, head: string[], body: string[][], right: number[] = []) => {
    doc
      .setFont('helvetica', 'bold')
      .setFontSize(12)
      .text(title, left, y + 14);
    autoTable(doc, {
      startY: y + 20,
      head: [head],
      body: body.length ? body : [[{ content: 'None in this period.', colSpan: head.length }] as never],
      margin: { left, right: left },
      styles: { fontSize: 8, cellPadding: 3 },
      headStyles: { fillColor: [106, 72, 245] },
      columnStyles: Object.fromEntries(right.map((i) => [i, { halign: 'right' as const }])),
    });
    y = (doc as unknown as { lastAutoTable: { finalY: number } }).lastAutoTable.finalY + 16;
  };

  table(
    'Summary',
    ['Item', 'Amount'],
    summaryLines(s).map(([label, amount]) => [label, formatPrice(amount)]),
    [1],
  );
  table(
    'Cash movements',
    ['Date', 'Type', 'Description', 'Status', 'Amount'],
    s.movements.map((m) => [formatDate(m.at), m.type, m.description, m.status, formatPrice(m.effect)]),
    [4],
  );
  table(
    'Trades',
    ['Date', 'Side', 'Token', 'Tokens', 'Price', 'Value', 'Fee', 'Total'],
    s.trades.map((t) => [
      formatDate(t.at),
      tradeSide(t),
      t.token,
      formatInteger(t.tokens),
      formatPrice(t.price),
      formatPrice(t.value),
      formatPrice(t.fee),
      formatPrice(t.total),
    ]),
    [3, 4, 5, 6, 7],
  );
  table(
    'Positions at the close',
    ['Token', 'Tokens', 'Price', 'Value'],
    s.positions.map((p) => [p.token, formatInteger(p.tokens), formatPrice(p.price), formatPrice(p.value)]),
    [1, 2, 3],
  );
  table(
    'Realized gains by lot (first in, first out)',
    ['Token', 'Bought', 'Sold', 'Tokens', 'Cost', 'Proceeds', 'Fees', 'Gain'],
    s.lots.map((l) => [
      l.token,
      formatDate(l.bought_at),
      formatDate(l.sold_at),
      formatInteger(l.tokens),
      formatPrice(l.cost),
      formatPrice(l.proceeds),
      formatPrice(l.fees),
      formatSignedPrice(l.gain),
    ]),
    [3, 4, 5, 6, 7],
  );
  const pages = doc.getNumberOfPages();
  for (let i = 1; i <= pages; i++) {
    doc.setPage(i).setFontSize(8).setTextColor(120);
    doc.text(
      `RepX statement ${s.from} to ${s.to} · page ${i} of ${pages}`,
      left,
      doc.internal.pageSize.getHeight() - 20,
    );
  }
  return doc.output('arraybuffer');
}
