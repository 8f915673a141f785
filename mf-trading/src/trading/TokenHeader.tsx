import { useWatchlist } from '@repex/shared-ui/platform';
import {
  Avatar,
  Badge,
  Change,
  Muted,
  Skeleton,
  VerifiedBadge,
  WatchStar,
  formatChange,
  formatInteger,
  formatPrice,
} from '@repex/shared-ui/ui';
import type { TradedToken } from './data';
import { Header, PriceBlock, Watching } from './Trading.styles';

/** The token's name, handle, category and watch star, its price and 24h change, and who is watching. */
export function TokenHeader({ token: t, watchers }: { token: TradedToken | undefined; watchers: number | undefined }) {
  const watchlist = useWatchlist();
  return (
    <Header>
      {t ? <Avatar name={t.name} src={t.avatar_url} size={56} /> : <Skeleton $width="56px" $height="56px" />}
      <div>
        <h1>
          {t?.name ?? <Skeleton $width="200px" $height="28px" />}
          {t?.verified && <VerifiedBadge />}
          {t && (
            <WatchStar
              on={watchlist.watched.has(t.id)}
              name={t.name}
              onToggle={() => void watchlist.toggle(t.id, t.name)}
            />
          )}
        </h1>
        {t && (
          <Muted>
            @{t.username} · <Badge $variant="secondary">{t.category}</Badge>
          </Muted>
        )}
      </div>
      <PriceBlock>
        <strong data-testid="token-price">
          {t ? formatPrice(t.price) : <Skeleton $width="100px" $height="30px" />}
        </strong>
        {t && <Change $value={t.change_24h}>{formatChange(t.change_24h)} (24h)</Change>}
        {watchers !== undefined && <Watching data-testid="watchers">{formatInteger(watchers)} watching now</Watching>}
      </PriceBlock>
    </Header>
  );
}
