import { Input, Select } from '@repex/shared-ui/ui';
import { Toolbar } from './Users.styles';
import type { useUsers } from './useUsers';

const FILTERS = [
  ['all', 'All accounts'],
  ['applications', 'Token applications'],
  ['active', 'Active'],
  ['suspended', 'Suspended'],
  ['verified', 'Verified'],
] as const;
const SORTS = [
  ['joined:desc', 'Newest first'],
  ['joined:asc', 'Oldest first'],
  ['username:asc', 'Username A-Z'],
  ['name:asc', 'Name A-Z'],
  ['last_sign_in:desc', 'Last sign-in'],
  ['status:desc', 'Suspended first'],
] as const;

/** Search, filter and sort of User Management. */
export function UsersToolbar({ q }: { q: ReturnType<typeof useUsers> }) {
  return (
    <Toolbar>
      <Input
        type="search"
        aria-label="Search accounts"
        placeholder="Search by username, name or email..."
        value={q.typed}
        onChange={(e) => q.setTyped(e.target.value)}
      />
      <Select aria-label="Show" value={q.filter} onChange={(e) => q.setFilter(e.target.value)}>
        {FILTERS.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </Select>
      <Select aria-label="Sort" value={q.sort} onChange={(e) => q.setSort(e.target.value)}>
        {SORTS.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </Select>
    </Toolbar>
  );
}
