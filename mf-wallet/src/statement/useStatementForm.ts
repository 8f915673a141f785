import { useState } from 'react';
import { toast } from '@repex/shared-ui/platform';
import { downloadCsv, downloadFile } from '@repex/shared-ui/ui';
import { loadStatement, statementFileName } from './data';
import { statementCsv } from './statementCsv';

/** Today's UTC date (2026-11-26): statements are of UTC days, as the database keeps them. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

/** The first and last day of a month (2026-11), its last day today's while it runs. */
export function monthDays(month: string, today = todayUtc()): { from: string; to: string } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  return { from: `${month}-01`, to: last < today ? last : today };
}

/**
 * The Statement dialog's choices (a month, or any range of days; CSV or PDF) and the download:
 * the database makes the statement and refuses a period in words; the file is made here.
 */
export function useStatementForm() {
  const today = todayUtc();
  const [kind, setKind] = useState<'month' | 'range'>('month');
  const [month, setMonth] = useState(today.slice(0, 7));
  const [from, setFrom] = useState(`${today.slice(0, 7)}-01`);
  const [to, setTo] = useState(today);
  const [format, setFormat] = useState<'pdf' | 'csv'>('pdf');

  /** Downloads the statement; null when done, or what is wrong. */
  const download = async (): Promise<string | null> => {
    const period = kind === 'month' ? (month ? monthDays(month, today) : null) : from && to ? { from, to } : null;
    if (!period) return kind === 'month' ? 'Choose a month.' : 'Choose the first and the last day.';
    const statement = await loadStatement(period.from, period.to);
    const name = statementFileName(statement, format);
    if (format === 'csv') downloadCsv(name, statementCsv(statement));
    else {
      const { statementPdf } = await import('./statementPdf');
      downloadFile(name, new Blob([await statementPdf(statement)], { type: 'application/pdf' }));
    }
    toast({ title: 'Statement Downloaded', description: name });
    return null;
  };
  return { kind, setKind, month, setMonth, from, setFrom, to, setTo, format, setFormat, today, download };
}
