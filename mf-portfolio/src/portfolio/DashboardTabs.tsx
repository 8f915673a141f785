import { Link } from 'react-router';
import styled from 'styled-components';
import type { useWatchlist } from '@repex/shared-ui/platform';
import {
  Button,
  DataTable,
  Change,
  EmptyState,
  Muted,
  TokenPrice,
  PersonCell,
  SkeletonRows,
  StackedTable,
  TableScroll,
  formatChange,
  formatInteger,
  formatSignedMoney,
  formatPrice,
  WatchStar,
} from '@repex/shared-ui/ui';
import type { DashboardData } from './data';
import { useWatchedTokens } from './useWatchedTokens';

/** Buttons side by side inside a cell (the cell itself stays a table cell, so rows line up). */
const RowButtons = styled.div`
  display: flex;
  gap: 6px;
  align-items: center;
`;

/** The tokens held, with their cost, value and P&L, and Buy and Sell. */
export function HoldingsTab({ data }: { data: DashboardData | undefined }) {
  return (
    <>
      <TableScroll>
        <StackedTable aria-label="Holdings">
          <thead>
            <tr>
              <th>Person</th>
              <th className="num">Tokens</th>
              <th className="num">Avg Price</th>
              <th className="num">Current Price</th>
              <th className="num">Value</th>
              <th className="num">P&amp;L</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {!data && <SkeletonRows rows={3} columns={7} />}
            {data?.positions.map((pos) => (
              <tr key={pos.token_id} data-testid="holding-row">
                <td className="full">
                  <PersonCell person={pos} />
                </td>
                <td className="num" data-label="Tokens">
                  {formatInteger(pos.tokens)}
                </td>
                <td className="num" data-label="Avg">
                  {formatPrice(pos.avg_price)}
                </td>
                <td className="num" data-label="Now">
                  <TokenPrice price={pos.price} halted={data.halted.has(pos.token_id)} />
                </td>
                <td className="num" data-label="Value">
                  {formatPrice(pos.value)}
                </td>
                <td className="num" data-label="P&L">
                  <Change $value={pos.pnl}>
                    {formatSignedMoney(pos.pnl)} ({formatChange(pos.pnl_percent)})
                  </Change>
                </td>
                <td className="full">
                  <RowButtons>
                    <Button as={Link} to={`/trading/${pos.token_id}?side=buy`} $size="sm">
                      Buy
                    </Button>
                    <Button as={Link} to={`/trading/${pos.token_id}?side=sell`} $size="sm" $variant="outline">
                      Sell
                    </Button>
                  </RowButtons>
                </td>
              </tr>
            ))}
          </tbody>
        </StackedTable>
        {data?.positions.length === 0 && (
          <EmptyState>
            <span>
              You hold no tokens yet. <Link to="/market">Browse the market</Link> to make your first trade.
            </span>
          </EmptyState>
        )}
      </TableScroll>
      {data?.ownTokenId && <Muted style={{ fontSize: 13 }}>Your own token is shown on your profile.</Muted>}
    </>
  );
}

/** The starred tokens, each with its star and Trade. */
export function WatchlistTab({ stars }: { stars: ReturnType<typeof useWatchlist> }) {
  const watchlist = useWatchedTokens(stars.saved);
  return (
    <DataTable
      label="Watchlist"
      head={
        <>
          <th>Person</th>
          <th className="num">Price</th>
          <th className="num">24h Change</th>
          <th>Category</th>
          <th aria-label="Action" />
        </>
      }
      rows={watchlist.data}
      error={watchlist.error}
      errorTitle="Your watchlist could not be loaded."
      onRetry={watchlist.reload}
      skeleton={[3, 5]}
      empty="Your watchlist is empty. Star a token on the market to follow it here."
    >
      {(t) => (
        <tr key={t.id} data-testid="watchlist-row">
          <td className="full">
            <PersonCell person={t} withCategory={false} />
          </td>
          <td className="num" data-label="Price">
            <TokenPrice price={t.price} halted={t.halted} />
          </td>
          <td className="num" data-label="24h">
            <Change $value={t.change_24h}>{formatChange(t.change_24h)}</Change>
          </td>
          <td>{t.category}</td>
          <td>
            <div style={{ display: 'flex', gap: 4, alignItems: 'center', justifyContent: 'flex-end' }}>
              <WatchStar on={stars.watched.has(t.id)} name={t.name} onToggle={() => void stars.toggle(t.id, t.name)} />
              <Button as={Link} to={`/trading/${t.id}`} $size="sm">
                Trade
              </Button>
            </div>
          </td>
        </tr>
      )}
    </DataTable>
  );
}
