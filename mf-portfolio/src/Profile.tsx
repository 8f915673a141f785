import { useState } from 'react';
import styled from 'styled-components';
import { useAppStore, useQuery } from '@repex/shared-ui/platform';
import {
  Avatar,
  Badge,
  Button,
  Card,
  CardGrid,
  CardTitle,
  EmptyState,
  ErrorState,
  Muted,
  Page,
  Progress,
  Skeleton,
  StatCard,
  StackedTable,
  TableScroll,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  VerifiedBadge,
  formatDate,
  formatInteger,
  formatMoney,
  formatPrice,
  media,
  SideBadge,
} from '@repex/shared-ui/ui';
import { loadProfile, type ProfileData } from './portfolio/profileData';
import { EditProfileDialog, SettingsDialog, shareTradingPage, type AccountEmail } from './profile/ProfileDialogs';
import { EmailDialog } from './profile/EmailDialog';
import { SessionsDialog } from './profile/SessionsDialog';
import { AppsDialog, TurnOnDialog } from './profile/TwoStepDialog';
import { TokenApplication } from './profile/TokenApplication';

const Cover = styled.div`
  height: 180px;
  border-radius: ${({ theme }) => theme.radius.lg};
  background: linear-gradient(120deg, #2b1f66 0%, #1b3a5c 50%, #0f4c5c 100%);
  ${media.phone} {
    height: 120px;
  }
`;
const Identity = styled.div`
  display: flex;
  align-items: flex-end;
  gap: 16px;
  margin-top: -56px;
  padding: 0 20px;
  flex-wrap: wrap;
  > span {
    border: 4px solid ${({ theme }) => theme.colors.bg};
  }
`;
const NameAndHandle = styled.div`
  flex: 1;
  min-width: 200px;
  h1 {
    margin: 0;
    font-size: 26px;
    display: flex;
    align-items: center;
    gap: 8px;
  }
`;
const Buttons = styled.div`
  display: flex;
  gap: 8px;
`;
const Meta = styled.p`
  margin: 8px 20px 0;
  color: ${({ theme }) => theme.colors.muted};
  display: flex;
  gap: 16px;
  flex-wrap: wrap;
`;
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
const StatRow = styled.div`
  display: flex;
  justify-content: space-between;
  gap: 12px;
  padding: 8px 0;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  &:last-child {
    border-bottom: 0;
  }
`;

const When = styled(Muted)`
  white-space: nowrap;
`;

function Overview({ d }: { d: ProfileData }) {
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
          </>
        ) : (
          <Muted>Your token has not been issued yet.</Muted>
        )}
      </Card>
      <Card>
        <CardTitle>Social Impact</CardTitle>
        <StatRow>
          <span>Followers</span>
          <strong>{formatInteger(d.profile.followers)}</strong>
        </StatRow>
        <StatRow>
          <span>Following</span>
          <strong>{formatInteger(d.profile.following)}</strong>
        </StatRow>
        <StatRow>
          <span>Engagement Rate</span>
          <strong>{d.profile.engagement_rate.toFixed(1)}%</strong>
        </StatRow>
      </Card>
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

/** Spec section 2, Profile: the signed-in user's own. */
export default function Profile() {
  const userId = useAppStore((s) => s.session?.user.id)!;
  const q = useQuery(() => loadProfile(userId), [userId]);
  const [open, setOpen] = useState<
    'edit' | 'settings' | 'sessions' | 'two-step-on' | 'two-step-apps' | AccountEmail | null
  >(null);
  const d = q.data;

  if (q.error && !d) {
    return (
      <Page data-remote="portfolio">
        <Card>
          <ErrorState title="Your profile could not be loaded." message={q.error.message} onRetry={q.reload} />
        </Card>
      </Page>
    );
  }

  const t = d?.token;
  const noToken = d && !t;
  return (
    <Page data-remote="portfolio">
      <div>
        <Cover
          role="img"
          aria-label="Cover image"
          style={d?.profile.cover_url ? { background: `url(${d.profile.cover_url}) center/cover` } : undefined}
        />
        <Identity>
          {d ? (
            <Avatar name={d.profile.full_name} src={d.profile.avatar_url} size={112} />
          ) : (
            <Skeleton $width="112px" $height="112px" />
          )}
          <NameAndHandle>
            <h1>
              {d?.profile.full_name ?? <Skeleton $width="200px" $height="28px" />}
              {d?.profile.verified && <VerifiedBadge />}
            </h1>
            {d && <Muted>@{d.profile.username}</Muted>}
          </NameAndHandle>
          <Buttons>
            <Button $variant="outline" disabled={!d} onClick={() => setOpen('edit')}>
              Edit
            </Button>
            <Button
              $variant="outline"
              disabled={!d}
              onClick={() => d && void shareTradingPage(d.token?.id, d.profile.full_name)}
            >
              Share
            </Button>
            <Button $variant="outline" onClick={() => setOpen('settings')}>
              Settings
            </Button>
          </Buttons>
        </Identity>
        {d && <p style={{ margin: '12px 20px 0' }}>{d.profile.bio || <Muted>No bio yet.</Muted>}</p>}
        {d && (
          <Meta>
            {d.profile.location && <span>{d.profile.location}</span>}
            <span>
              Joined {new Date(d.profile.created_at).toLocaleDateString('en-US', { month: 'long', year: 'numeric' })}
            </span>
          </Meta>
        )}
      </div>

      {noToken && <TokenApplication userId={d.profile.id} fullName={d.profile.full_name} onIssued={q.reload} />}

      <CardGrid>
        <StatCard label="Reputation Score" value={d && (t ? `${t.reputation_score.toFixed(1)}/100` : '—')} />
        <StatCard
          label="Token Price"
          value={d && (t ? formatPrice(t.price) : '—')}
          hint={t?.halted && 'Trading halted by the exchange: we emailed you why.'}
        />
        <StatCard label="Market Cap" value={d && (t ? formatMoney(t.market_cap) : '—')} />
        <StatCard label="Followers" value={d && formatInteger(d.profile.followers)} />
      </CardGrid>

      <Card>
        <Tabs defaultValue="overview">
          <TabsList>
            <TabsTrigger value="overview">Overview</TabsTrigger>
            <TabsTrigger value="tokens">Tokens</TabsTrigger>
            <TabsTrigger value="achievements">Achievements</TabsTrigger>
            <TabsTrigger value="analytics">Analytics</TabsTrigger>
          </TabsList>
          <TabsContent value="overview">{d ? <Overview d={d} /> : <Skeleton $height="240px" />}</TabsContent>
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
      {open === 'edit' && d && (
        <EditProfileDialog profile={d.profile} onClose={() => setOpen(null)} onSaved={q.reload} />
      )}
      {open === 'settings' && (
        <SettingsDialog
          onClose={() => setOpen(null)}
          onChangeEmail={setOpen}
          onSessions={() => setOpen('sessions')}
          onTwoStep={(on) => setOpen(on ? 'two-step-apps' : 'two-step-on')}
        />
      )}
      {open === 'sessions' && <SessionsDialog onClose={() => setOpen(null)} />}
      {open === 'two-step-on' && <TurnOnDialog onClose={() => setOpen(null)} />}
      {open === 'two-step-apps' && <AppsDialog onClose={() => setOpen(null)} />}
      {typeof open === 'object' && open !== null && 'current' in open && (
        <EmailDialog current={open.current} pending={open.pending} onClose={() => setOpen(null)} />
      )}
    </Page>
  );
}
