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
 * Pages count from 1. An `estimated` total is a guess (the database counts exactly only up to a
 * limit): it is shown rounded, as "about", and `more` says whether a next page exists.
 */
export function Pager({
  total,
  page,
  pageSize,
  onPage,
  estimated = false,
  more = page * pageSize < total,
}: {
  total: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  estimated?: boolean;
  more?: boolean;
}) {
  if (page === 1 && !more) return null;
  const first = (page - 1) * pageSize + 1;
  const last = estimated ? first + pageSize - 1 : Math.min(page * pageSize, total);
  const of = estimated ? `about ${formatInteger(Number(total.toPrecision(3)))}` : formatInteger(total);
  return (
    <Bar>
      <Muted>
        {formatInteger(first)}–{formatInteger(last)} of {of}
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
