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
 * Pages count from 1.
 */
export function Pager({
  total,
  page,
  pageSize,
  onPage,
}: {
  total: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
}) {
  if (total <= pageSize) return null;
  const pages = Math.ceil(total / pageSize);
  return (
    <Bar>
      <Muted>
        {formatInteger((page - 1) * pageSize + 1)}–{formatInteger(Math.min(page * pageSize, total))} of{' '}
        {formatInteger(total)}
      </Muted>
      <div style={{ display: 'flex', gap: 8 }}>
        <Button $variant="outline" $size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button $variant="outline" $size="sm" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </div>
    </Bar>
  );
}
