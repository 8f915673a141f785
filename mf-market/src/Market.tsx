import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import styled from 'styled-components';
import { useWatchlist } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  CardGrid,
  DataTable,
  Input,
  Page,
  PageHeader,
  Select,
  StatCard,
  formatInteger,
  formatMoney,
  media,
  Pager,
} from '@repex/shared-ui/ui';
import { useMarketReads } from './market/useMarketReads';
import { MarketRow } from './market/MarketRow';
import { AdvancedFilters } from './market/AdvancedFilters';
import { IndexCard } from './market/IndexCard';
import { useLiveMarket } from './market/useLiveMarket';
import { PAGE_SIZE, SORTS, activeFilters, readQuery, writeQuery, type MarketQuery } from './market/query';

const Toolbar = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 1fr) 200px 240px auto;
  gap: 12px;
  margin-bottom: 16px;
  ${media.tablet} {
    grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  }
  ${media.phone} {
    grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
    gap: 8px;
    > :first-child,
    > :last-child {
      grid-column: 1 / -1;
    }
  }
`;
/**
 * The market's figures and its index: above the list when wide; on a phone after it, so that the
 * first screen holds the tokens themselves.
 */
const Overview = styled.div`
  display: contents;
  ${media.phone} {
    display: flex;
    flex-direction: column;
    gap: 24px;
    order: 2;
  }
`;

/** Spec section 2, Market screen. Search, filter, sort and paging run in the database. */
export default function Market() {
  const watchlist = useWatchlist();
  const [params, setParams] = useSearchParams();
  const query = readQuery(params);
  const [searchText, setSearchText] = useState(query.search);
  const filtersSet = activeFilters(query.filters);
  const [filtersOpen, setFiltersOpen] = useState(filtersSet > 0);
  const update = (change: Partial<MarketQuery>) =>
    setParams(writeQuery({ ...query, page: 1, ...change }), { replace: true });

  // Typing updates the URL (and so the query) after a short pause.
  useEffect(() => {
    if (searchText === query.search) return;
    const t = setTimeout(() => update({ search: searchText }), 250);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [searchText]);

  const { first, summary, categories, tokens, offerings } = useMarketReads(query, params.toString());
  const auctions = new Map((offerings.data ?? []).map((o) => [o.token_id, o]));
  // Prices, volumes and holders move when anyone trades: the market's messages carry them.
  useLiveMarket({ tokens, summary, offerings, categories }, query.sort);

  return (
    <Page data-remote="market">
      <PageHeader
        title="Reputation Market"
        subtitle="Discover and trade the reputation tokens of creators, leaders and experts."
      />

      <Overview>
        <CardGrid>
          <StatCard label="Total Market Cap" value={summary.data && formatMoney(summary.data.total_market_cap)} />
          <StatCard label="24h Volume" value={summary.data && formatMoney(summary.data.volume_24h)} />
          <StatCard label="Active Tokens" value={summary.data && formatInteger(summary.data.active_tokens)} />
          <StatCard label="Total Traders" value={summary.data && formatInteger(summary.data.total_traders)} />
        </CardGrid>

        <IndexCard first={first} />
      </Overview>

      <Card>
        <Toolbar>
          <Input
            type="search"
            aria-label="Search"
            placeholder="Search by name, username, or category..."
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
          />
          <Select
            aria-label="Category"
            value={query.category}
            onChange={(e) => update({ category: e.target.value, filters: { ...query.filters, categories: [] } })}
          >
            <option value="all">All Categories</option>
            {(categories.data ?? []).map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </Select>
          <Select aria-label="Sort by" value={query.sort} onChange={(e) => update({ sort: e.target.value })}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </Select>
          <Button $variant="outline" aria-expanded={filtersOpen} onClick={() => setFiltersOpen(!filtersOpen)}>
            Advanced Filters{filtersSet > 0 && ` (${filtersSet})`}
          </Button>
        </Toolbar>
        {filtersOpen && (
          <AdvancedFilters
            filters={query.filters}
            categories={categories.data ?? []}
            onApply={(filters) => update({ filters, ...(filters.categories.length ? { category: 'all' } : {}) })}
          />
        )}

        <DataTable
          label="Reputation tokens"
          busy={tokens.loading}
          head={
            <>
              <th>Person</th>
              <th>Reputation</th>
              <th className="num">Price</th>
              <th className="num">24h Change</th>
              <th className="num">Market Cap</th>
              <th className="num">Volume</th>
              <th className="num">Holders</th>
              <th aria-label="Action" />
            </>
          }
          rows={tokens.data?.rows}
          error={tokens.error}
          errorTitle="The market could not be loaded."
          onRetry={tokens.reload}
          skeleton={[6, 8]}
          empty="No reputation stocks found matching your criteria."
        >
          {(t) => (
            <MarketRow
              key={t.id}
              token={t}
              watched={watchlist.watched.has(t.id)}
              onToggleWatch={() => void watchlist.toggle(t.id, t.name)}
              offering={auctions.get(t.id)}
            />
          )}
        </DataTable>
        {tokens.data && (
          <Pager
            total={tokens.data.total}
            estimated={tokens.data.estimated}
            more={tokens.data.more}
            page={query.page}
            pageSize={PAGE_SIZE}
            onPage={(page) => update({ page })}
          />
        )}
      </Card>
    </Page>
  );
}
