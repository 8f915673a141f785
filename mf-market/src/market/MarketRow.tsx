import { Link } from 'react-router';
import styled from 'styled-components';
import type { MarketToken } from '@repex/shared-ui/contracts';
import { AuctionBadge, PausedBadge } from './AuctionBadge';
import type { OpenOffering } from './data';
import {
  Button,
  Change,
  TokenPrice,
  PersonCell,
  Progress,
  WatchStar,
  formatChange,
  formatInteger,
  formatMoney,
} from '@repex/shared-ui/ui';

const Score = styled.div`
  display: flex;
  align-items: center;
  gap: 8px;
  min-width: 120px;
  span {
    font-weight: 600;
    width: 36px;
  }
`;
const RowActions = styled.div`
  display: flex;
  align-items: center;
  justify-content: flex-end;
  gap: 4px;
`;

/**
 * One token of the market table: who, the score, price and change, size, and Watch and Trade; a
 * token in its offering's auction, or paused for a volatility auction, is marked beside its price.
 */
export function MarketRow({
  token,
  watched,
  onToggleWatch,
  offering,
}: {
  token: MarketToken;
  watched: boolean;
  onToggleWatch: () => void;
  offering?: OpenOffering;
}) {
  return (
    <tr data-testid="market-row">
      <td className="full">
        <PersonCell person={token} />
      </td>
      <td className="full" data-label="Reputation">
        <Score>
          <span>{token.reputation_score.toFixed(1)}</span>
          <Progress value={token.reputation_score} label={`Reputation score ${token.reputation_score} of 100`} />
        </Score>
      </td>
      <td className="num" data-label="Price">
        <TokenPrice price={token.price} halted={token.halted} />
        {offering && (
          <>
            {' '}
            <AuctionBadge offering={offering} />
          </>
        )}
        {token.trading_phase === 'volatility_auction' && token.auction_until && (
          <>
            {' '}
            <PausedBadge until={token.auction_until} />
          </>
        )}
      </td>
      <td className="num" data-label="24h">
        <Change $value={token.change_24h}>
          {token.change_24h > 0 ? '▲ ' : token.change_24h < 0 ? '▼ ' : ''}
          {formatChange(token.change_24h)}
        </Change>
      </td>
      <td className="num" data-label="Cap">
        {formatMoney(token.market_cap)}
      </td>
      <td className="num" data-label="Volume">
        {formatMoney(token.volume_24h)}
      </td>
      <td className="num" data-label="Holders">
        {formatInteger(token.holders)}
      </td>
      <td className="full">
        <RowActions>
          <WatchStar on={watched} name={token.name} onToggle={onToggleWatch} />
          <Button as={Link} to={`/trading/${token.id}`} $size="sm">
            Trade
          </Button>
        </RowActions>
      </td>
    </tr>
  );
}
