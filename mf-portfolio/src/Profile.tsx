import { useState } from 'react';
import { useSearchParams } from 'react-router';
import styled from 'styled-components';
import { useAppStore, useQuery } from '@repex/shared-ui/platform';
import {
  Avatar,
  Button,
  Card,
  CardGrid,
  ErrorState,
  Muted,
  Page,
  Skeleton,
  StatCard,
  VerifiedBadge,
  formatInteger,
  formatMoney,
  formatPrice,
  media,
} from '@repex/shared-ui/ui';
import { loadProfile } from './portfolio/profileData';
import { NotificationsDialog } from './account/NotificationsDialog';
import { TokenDiscussion } from './profile/TokenDiscussion';
import { EditProfileDialog, SettingsDialog, shareTradingPage, type AccountEmail } from './account/ProfileDialogs';
import { EmailDialog } from './account/EmailDialog';
import { SessionsDialog } from './account/SessionsDialog';
import { ApiKeysDialog } from './account/ApiKeysDialog';
import { ConnectedAccountsDialog } from './account/ConnectedAccountsDialog';
import { genuineFollowers } from './social/genuine';
import { useSocial } from './social/useSocial';
import { AppsDialog, TurnOnDialog } from './account/TwoStepDialog';
import { TokenApplication } from './profile/TokenApplication';
import { ProfileTabs } from './profile/ProfileTabs';

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
/** Spec section 2, Profile: the signed-in user's own. */
type OpenDialog =
  | 'edit'
  | 'settings'
  | 'sessions'
  | 'two-step-on'
  | 'two-step-apps'
  | 'social'
  | 'api-keys'
  | 'notifications'
  | AccountEmail
  | null;

export default function Profile() {
  const userId = useAppStore((s) => s.session?.user.id)!;
  const q = useQuery(() => loadProfile(userId), [userId]);
  const social = useSocial(userId, () => q.reload());
  // ?open=social (the dashboard's first steps) opens Connected accounts at once.
  const [params] = useSearchParams();
  // ?open=notifications (the bell's link) opens the notification choices.
  const [open, setOpen] = useState<OpenDialog>(
    params.get('open') === 'social' ? 'social' : params.get('open') === 'notifications' ? 'notifications' : null,
  );
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
        <StatCard
          label="Followers"
          value={d && formatInteger(d.profile.followers)}
          hint={d ? genuineFollowers(d.profile.followers, social.analysis.data) : undefined}
        />
      </CardGrid>

      <ProfileTabs
        d={d}
        social={{ accounts: social.accounts.data, analysis: social.analysis.data, onConnect: () => setOpen('social') }}
      />
      {t && <TokenDiscussion key={t.id} tokenId={t.id} tokenName={t.name} me={userId} />}
      {open === 'edit' && d && (
        <EditProfileDialog profile={d.profile} onClose={() => setOpen(null)} onSaved={q.reload} />
      )}
      {open === 'settings' && (
        <SettingsDialog
          onClose={() => setOpen(null)}
          onChangeEmail={setOpen}
          onSessions={() => setOpen('sessions')}
          onTwoStep={(on) => setOpen(on ? 'two-step-apps' : 'two-step-on')}
          onSocial={() => setOpen('social')}
          onApiKeys={() => setOpen('api-keys')}
          onNotifications={() => setOpen('notifications')}
        />
      )}
      {open === 'social' && <ConnectedAccountsDialog userId={userId} onClose={() => setOpen(null)} />}
      {open === 'sessions' && <SessionsDialog onClose={() => setOpen(null)} />}
      {open === 'api-keys' && <ApiKeysDialog onClose={() => setOpen(null)} />}
      {open === 'notifications' && <NotificationsDialog onClose={() => setOpen(null)} />}
      {open === 'two-step-on' && <TurnOnDialog onClose={() => setOpen(null)} />}
      {open === 'two-step-apps' && <AppsDialog onClose={() => setOpen(null)} />}
      {typeof open === 'object' && open !== null && 'current' in open && (
        <EmailDialog current={open.current} pending={open.pending} onClose={() => setOpen(null)} />
      )}
    </Page>
  );
}
