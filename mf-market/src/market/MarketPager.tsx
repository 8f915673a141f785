import styled from 'styled-components';
import { Button, Muted, formatInteger } from '@repex/shared-ui/ui';
import { PAGE_SIZE } from './query';

const Pager = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 12px;
  margin-top: 16px;
  flex-wrap: wrap;
`;

/** Which tokens of how many are shown, and Previous and Next; nothing when one page holds them all. */
export function MarketPager({ total, page, onPage }: { total: number; page: number; onPage: (page: number) => void }) {
  if (total <= PAGE_SIZE) return null;
  const pages = Math.ceil(total / PAGE_SIZE);
  return (
    <Pager>
      <Muted>
        {formatInteger((page - 1) * PAGE_SIZE + 1)}–{formatInteger(Math.min(page * PAGE_SIZE, total))} of{' '}
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
    </Pager>
  );
}
