import { useState } from 'react';
import { useQuery } from '@repex/shared-ui/platform';
import { loadLots, type SalesSpan } from './data';

/** The page of realized lots shown, from the first again whenever the period changes. */
export function useLots(sales: SalesSpan) {
  const [paged, setPaged] = useState({ span: sales, page: 1 });
  const same = paged.span.from === sales.from && paged.span.to === sales.to;
  const page = same ? paged.page : 1;
  const lots = useQuery(() => loadLots(sales, page), [sales.from, sales.to, page]);
  return { lots, setPage: (next: number) => setPaged({ span: sales, page: next }) };
}
