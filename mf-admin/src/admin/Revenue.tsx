import { useState } from 'react';
import styled from 'styled-components';
import { useQuery } from '@repex/shared-ui/platform';
import type { RevenueRow } from '@repex/shared-ui/contracts';
import {
  DataTable,
  Button,
  Muted,
  Select,
  downloadCsv,
  formatInteger,
  formatMoney,
  formatPrice,
  csvMoney,
  toCsv,
} from '@repex/shared-ui/ui';
import { rpc } from './rpc';

const GROUPS = [
  ['day', 'By day'],
  ['week', 'By week'],
  ['token', 'By token'],
] as const;
const PERIODS = [
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
  ['all', 'All time'],
] as const;

const Toolbar = styled.div`
  display: flex;
  gap: 8px;
  flex-wrap: wrap;
  align-items: center;
  margin-bottom: 16px;
  select {
    width: auto;
    min-width: 150px;
  }
  button {
    margin-left: auto;
  }
`;
const Bars = styled.div`
  display: flex;
  align-items: flex-end;
  gap: 4px;
  height: 160px;
  margin-bottom: 16px;
  div {
    flex: 1;
    min-width: 2px;
    border-radius: 3px 3px 0 0;
    background: ${({ theme }) => theme.gradient};
  }
`;

/** The report as CSV: a row per period or token, and the totals, each added in cents so it matches the ledger's. */
function revenueCsv(rows: RevenueRow[], group: (typeof GROUPS)[number][0]): string {
  const label = GROUPS.find(([g]) => g === group)![1].replace('By ', '');
  const total = (of: (r: RevenueRow) => number) => rows.reduce((s, r) => s + Math.round(of(r) * 100), 0) / 100;
  return toCsv(
    [
      label[0]!.toUpperCase() + label.slice(1),
      'Trades',
      'Volume (USD)',
      'Fees (USD)',
      'Taker fees (USD)',
      'Maker fees (USD)',
      "Creators' share (USD)",
      'Fee revenue (USD)',
    ],
    [
      ...rows.map((r) => [
        r.bucket,
        r.trades,
        csvMoney(r.volume),
        csvMoney(r.fees),
        csvMoney(r.taker_fees),
        csvMoney(r.maker_fees),
        csvMoney(r.creator_share),
        csvMoney(r.revenue),
      ]),
      [
        'Total',
        rows.reduce((s, r) => s + r.trades, 0),
        csvMoney(total((r) => r.volume)),
        csvMoney(total((r) => r.fees)),
        csvMoney(total((r) => r.taker_fees)),
        csvMoney(total((r) => r.maker_fees)),
        csvMoney(total((r) => r.creator_share)),
        csvMoney(total((r) => r.revenue)),
      ],
    ],
  );
}

/** Fee revenue by day, week or token; the export's total equals the period's trade fees to the cent. */
export function Revenue() {
  const [group, setGroup] = useState<(typeof GROUPS)[number][0]>('day');
  const [period, setPeriod] = useState<(typeof PERIODS)[number][0]>('30');
  const days = period === 'all' ? null : Number(period);
  const report = useQuery(() => rpc('admin_revenue', { p_group: group, p_days: days }), [group, days]);
  const rows = report.data;
  const totalCents = (rows ?? []).reduce((s, r) => s + Math.round(r.revenue * 100), 0);
  const max = Math.max(0, ...(rows ?? []).map((r) => r.revenue));
  const chronological = group === 'token' ? rows : [...(rows ?? [])].reverse();

  const exportCsv = () => {
    if (!rows) return;
    downloadCsv(`repx-revenue-by-${group}-${period}.csv`, revenueCsv(rows, group));
  };

  return (
    <>
      <Toolbar>
        <Select aria-label="Group by" value={group} onChange={(e) => setGroup(e.target.value as typeof group)}>
          {GROUPS.map(([g, l]) => (
            <option key={g} value={g}>
              {l}
            </option>
          ))}
        </Select>
        <Select aria-label="Period" value={period} onChange={(e) => setPeriod(e.target.value as typeof period)}>
          {PERIODS.map(([p, l]) => (
            <option key={p} value={p}>
              {l}
            </option>
          ))}
        </Select>
        <Muted data-testid="revenue-total">Total {formatPrice(totalCents / 100)}</Muted>
        <Button $variant="outline" onClick={exportCsv} disabled={!rows}>
          Export Report
        </Button>
      </Toolbar>
      {!!chronological?.length && max > 0 && (
        <Bars aria-hidden="true">
          {chronological.map((r) => (
            <div
              key={r.bucket}
              title={`${r.bucket}: ${formatPrice(r.revenue)}`}
              style={{ height: `${Math.max(1, (r.revenue / max) * 100)}%` }}
            />
          ))}
        </Bars>
      )}
      <DataTable
        label="Revenue"
        head={
          <>
            <th>{group === 'token' ? 'Token' : group === 'week' ? 'Week' : 'Day'}</th>
            <th className="num">Trades</th>
            <th className="num">Volume</th>
            <th className="num">Fees</th>
            <th className="num">Creators&apos; Share</th>
            <th className="num">Fee Revenue</th>
          </>
        }
        rows={rows}
        error={report.error}
        errorTitle="Revenue could not be loaded."
        onRetry={report.reload}
        skeleton={[7, 6]}
        empty="No trades in this period."
      >
        {(r) => (
          <tr key={r.bucket} data-testid="revenue-row">
            <td className="full">
              <strong>{r.bucket}</strong>
            </td>
            <td className="num" data-label="Trades">
              {formatInteger(r.trades)}
            </td>
            <td className="num" data-label="Volume">
              {formatMoney(r.volume)}
            </td>
            <td className="num" data-label="Fees">
              {formatPrice(r.fees)}
              <small style={{ display: 'block', opacity: 0.8 }}>
                taker {formatPrice(r.taker_fees)} · maker {formatPrice(r.maker_fees)}
              </small>
            </td>
            <td className="num" data-label="Creators' share">
              {formatPrice(r.creator_share)}
            </td>
            <td className="num" data-label="Revenue">
              {formatPrice(r.revenue)}
            </td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
