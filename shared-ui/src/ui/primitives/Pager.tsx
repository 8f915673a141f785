import styled from 'styled-components';
import { formatInteger } from '../format';
import { Button } from './Button';
import { Muted } from './States';

const Bar = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 12px;
  margin-top: 16px;
  flex-wrap: wrap;
`;

/**
 * Which rows of how many are shown, and Previous and Next; nothing when one page holds them all.
 * Pages count from 1. Without a `total`, the rows `shown` on this page say which they are, and
 * `more` whether a next page exists. An `estimated` total is a guess (the database counts exactly
 * only up to a limit): it is shown rounded, as "about".
 */
export function Pager({
  total,
  page,
  pageSize,
  onPage,
  shown,
  estimated = false,
  more = total !== undefined && page * pageSize < total,
}: {
  total?: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  shown?: number;
  estimated?: boolean;
  more?: boolean;
}) {
  if (page === 1 && !more) return null;
  const first = (page - 1) * pageSize + 1;
  const last =
    shown !== undefined
      ? first + shown - 1
      : estimated || total === undefined
        ? first + pageSize - 1
        : Math.min(page * pageSize, total);
  const of =
    total === undefined
      ? ''
      : ` of ${estimated ? `about ${formatInteger(Number(total.toPrecision(3)))}` : formatInteger(total)}`;
  return (
    <Bar>
      <Muted>
        {formatInteger(first)}–{formatInteger(last)}
        {of}
      </Muted>
      <div style={{ display: 'flex', gap: 8 }}>
        <Button $variant="outline" $size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button $variant="outline" $size="sm" disabled={!more} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </div>
    </Bar>
  );
}
