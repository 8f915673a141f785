import { useEffect, useState } from 'react';
import { useQuery } from '@repex/shared-ui/platform';
import { rpc } from './rpc';

export const USERS_PAGE = 25;

/**
 * User Management's query: what is typed in the search (applied a quarter second after typing
 * stops), the filter, the sort and the page, each a new read of admin_list_users. A new search,
 * filter or sort starts again at the first page.
 */
export function useUsers(version: number) {
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const [filter, setFilterState] = useState<string>('all');
  const [sort, setSortState] = useState<string>('joined:desc');
  const [page, setPage] = useState(1);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(typed.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const [sortKey, direction] = sort.split(':');
  const users = useQuery(
    () =>
      rpc('admin_list_users', {
        p_search: search || null,
        p_filter: filter,
        p_sort: sortKey,
        p_desc: direction === 'desc',
        p_limit: USERS_PAGE,
        p_offset: (page - 1) * USERS_PAGE,
      }),
    [search, filter, sort, page, version],
  );
  return {
    users,
    total: users.data?.[0]?.total ?? 0,
    typed,
    setTyped,
    filter,
    setFilter: (f: string) => {
      setFilterState(f);
      setPage(1);
    },
    sort,
    setSort: (s: string) => {
      setSortState(s);
      setPage(1);
    },
    page,
    setPage,
  };
}
