import type { ReactNode } from 'react';
import { SkeletonRows } from './SkeletonRows';
import { EmptyState, ErrorState } from './States';
import { StackedTable, TableScroll } from './Table';

interface Props<T> {
  /** The table's accessible name. */
  label: string;
  /** The header cells (`<th>`s). */
  head: ReactNode;
  /** The rows; undefined while loading. */
  rows: T[] | undefined;
  /** Rows are being (re)loaded while the last ones stay shown. */
  busy?: boolean;
  error: Error | undefined;
  /** Said when the rows could not be loaded (they are shown with Retry). */
  errorTitle: string;
  onRetry: () => void;
  /** Placeholders while loading: how many rows and columns. */
  skeleton: [rows: number, columns: number];
  /** Said when there are no rows. */
  empty: ReactNode;
  children: (row: T) => ReactNode;
}

/**
 * A screen's table through its states: the error with Retry (while nothing was loaded),
 * placeholder rows while loading, the rows (a card each on a phone), or what to say when there
 * are none.
 */
export function DataTable<T>({
  label,
  head,
  rows,
  busy,
  error,
  errorTitle,
  onRetry,
  skeleton,
  empty,
  children,
}: Props<T>) {
  if (error && !rows) return <ErrorState title={errorTitle} message={error.message} onRetry={onRetry} />;
  return (
    <TableScroll>
      <StackedTable aria-label={label} aria-busy={busy}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>
          {!rows && <SkeletonRows rows={skeleton[0]} columns={skeleton[1]} />}
          {rows?.map(children)}
        </tbody>
      </StackedTable>
      {rows?.length === 0 && <EmptyState>{empty}</EmptyState>}
    </TableScroll>
  );
}
