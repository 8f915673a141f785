import styled from 'styled-components';

import {
  Badge,
  Card,
  CardTitle,
  EmptyState,
  Muted,
  Progress,
  Skeleton,
  StackedTable,
  StatRow,
  TableScroll,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  formatDate,
  formatInteger,
  formatPrice,
  media,
  SideBadge,
} from '@repex/shared-ui/ui';
import type { SocialAnalysis } from '@repex/shared-ui/contracts';
import type { ProfileData } from '../portfolio/profileData';
import type { SocialAccount } from '../social/data';
import { SocialAnalysisCard } from '../social/SocialAnalysisCard';
import { SocialImpact } from '../social/SocialImpact';

const TwoColumns = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: 16px;
  ${media.tablet} {
    grid-template-columns: 1fr;
  }
`;
const Bars = styled.div`
  display: flex;
  align-items: flex-end;
  gap: 8px;
  height: 220px;
  padding-top: 8px;
`;
const Bar = styled.div`
  flex: 1;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: flex-end;
  height: 100%;
  font-size: 11px;
  color: ${({ theme }) => theme.colors.muted};
  .track {
    flex: 1;
    width: 100%;
    display: flex;
    align-items: flex-end;
  }
  .fill {
    width: 100%;
    border-radius: 4px 4px 0 0;
    background: ${({ theme }) => theme.gradient};
  }
`;

const When = styled(Muted)`
  white-space: nowrap;
`;

/** What the profile shows of the user's connected accounts (social/useSocial.ts). */
export interface ProfileSocial {
  accounts: SocialAccount[] | undefined;
  analysis: SocialAnalysis | null | undefined;
  onConnect: () => void;
}

function Overview({ d, social }: { d: ProfileData; social: ProfileSocial }) {
  const share = d.token ? (d.ownedOfOwn / d.token.total_supply) * 100 : 0;
  return (
    <TwoColumns>
      <Card>
        <CardTitle>Token Holdings</CardTitle>
        {d.token ? (
          <>
            <StatRow>
              <span>You own</span>
              <strong>
                {formatInteger(d.ownedOfOwn)} of {formatInteger(d.token.total_supply)}
              </strong>
            </StatRow>
            <div style={{ margin: '12px 0 6px' }}>
              <Progress value={share} label={`Ownership ${share.toFixed(1)}%`} height={10} />
            </div>
            <Muted>{share.toFixed(1)}% ownership of your token</Muted>
            {d.vesting && (
              <div data-testid="profile-vesting" style={{ marginTop: 12 }}>
                <StatRow>
                  <span>Vested</span>
                  <strong>
                    {formatInteger(d.vesting.vested)} of {formatInteger(d.vesting.total)}
                  </strong>
                </StatRow>
                <Muted>
                  Your founder allocation is released linearly: nothing before {formatDate(d.vesting.cliff_at)}, all of
                  it by {formatDate(d.vesting.ends_at)}. Until then the rest is yours but cannot be sold.
                </Muted>
              </div>
            )}
          </>
        ) : (
          <Muted>Your token has not been issued yet.</Muted>
        )}
      </Card>
      <SocialImpact figures={d.profile} accounts={social.accounts} onConnect={social.onConnect} />
      {social.analysis && <SocialAnalysisCard analysis={social.analysis} />}
      <Card style={{ gridColumn: '1 / -1' }}>
        <CardTitle>Recent Activity</CardTitle>
        {d.recent.length === 0 && <Muted>No activity yet.</Muted>}
        {d.recent.map((t) => (
          <StatRow key={t.id}>
            <span>
              <Badge $variant={t.type === 'buy' ? 'up' : 'down'}>{t.type === 'buy' ? 'Bought' : 'Sold'}</Badge>{' '}
              {formatInteger(t.amount)} {t.name} tokens at {formatPrice(t.price)}
            </span>
            <When>{formatDate(t.created_at)}</When>
          </StatRow>
        ))}
      </Card>
    </TwoColumns>
  );
}

/** The profile's tabs: an overview, the trades in the user's token, achievements, the score's history. */
export function ProfileTabs({ d, social }: { d: ProfileData | undefined; social: ProfileSocial }) {
  return (
    <Card>
      <Tabs defaultValue="overview">
        <TabsList>
          <TabsTrigger value="overview">Overview</TabsTrigger>
          <TabsTrigger value="tokens">Tokens</TabsTrigger>
          <TabsTrigger value="achievements">Achievements</TabsTrigger>
          <TabsTrigger value="analytics">Analytics</TabsTrigger>
        </TabsList>
        <TabsContent value="overview">
          {d ? <Overview d={d} social={social} /> : <Skeleton $height="240px" />}
        </TabsContent>
        <TabsContent value="tokens">
          <TableScroll>
            <StackedTable aria-label="Token transactions">
              <thead>
                <tr>
                  <th>Type</th>
                  <th className="num">Amount</th>
                  <th className="num">Price</th>
                  <th className="num">Total</th>
                  <th>Date</th>
                </tr>
              </thead>
              <tbody>
                {d?.tokenTrades.map((tr) => (
                  <tr key={tr.id}>
                    <td>
                      <SideBadge side={tr.type} />
                    </td>
                    <td className="num" data-label="Amount">
                      {formatInteger(tr.amount)}
                    </td>
                    <td className="num" data-label="Price">
                      {formatPrice(tr.price)}
                    </td>
                    <td className="num" data-label="Total">
                      {formatPrice(tr.value)}
                    </td>
                    <td>{formatDate(tr.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </StackedTable>
            {d && d.tokenTrades.length === 0 && <EmptyState>No trades in your token yet.</EmptyState>}
          </TableScroll>
        </TabsContent>
        <TabsContent value="achievements">
          {d?.achievements.length === 0 && <EmptyState>No achievements yet. Trade to earn your first.</EmptyState>}
          {d?.achievements.map((a) => (
            <StatRow key={a.id}>
              <span>
                <strong>{a.title}</strong>
                <br />
                <Muted>{a.description}</Muted>
              </span>
              <Muted>{formatDate(a.achieved_on)}</Muted>
            </StatRow>
          ))}
        </TabsContent>
        <TabsContent value="analytics">
          <CardTitle>Reputation Score History</CardTitle>
          {d && d.history.length === 0 && <EmptyState>No reputation history yet.</EmptyState>}
          <Bars aria-label="Reputation score by month, out of 100">
            {d?.history.map((h) => (
              <Bar key={h.month} title={`${h.month.slice(0, 7)}: ${h.score}`}>
                <span>{Math.round(h.score)}</span>
                <div className="track">
                  <div className="fill" style={{ height: `${Math.min(100, h.score)}%` }} data-testid="history-bar" />
                </div>
                <span>
                  {new Date(`${h.month.slice(0, 10)}T00:00:00`).toLocaleDateString('en-US', { month: 'short' })}
                </span>
              </Bar>
            ))}
          </Bars>
        </TabsContent>
      </Tabs>
    </Card>
  );
}
