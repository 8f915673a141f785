import { Button, Card, CardTitle, Muted, StatRow, formatInteger } from '@repex/shared-ui/ui';
import { platformLabel, type SocialAccount } from './data';

/**
 * Social Impact: followers, following and engagement as the database keeps them from the connected
 * accounts (supabase/schemas/social.sql), which it names; or how to show them.
 */
export function SocialImpact({
  figures: f,
  accounts,
  onConnect,
}: {
  figures: { followers: number; following: number; engagement_rate: number };
  accounts: SocialAccount[] | undefined;
  onConnect: () => void;
}) {
  const connected = (accounts ?? []).filter((a) => a.status === 'connected');
  return (
    <Card data-testid="social-impact">
      <CardTitle>Social Impact</CardTitle>
      {accounts && connected.length === 0 && f.followers === 0 ? (
        <>
          <Muted as="p">Connect your social accounts to show your reach here and add it to your reputation.</Muted>
          <Button $size="sm" onClick={onConnect}>
            Connect accounts
          </Button>
        </>
      ) : (
        <>
          <StatRow>
            <span>Followers</span>
            <strong>{formatInteger(f.followers)}</strong>
          </StatRow>
          <StatRow>
            <span>Following</span>
            <strong>{formatInteger(f.following)}</strong>
          </StatRow>
          <StatRow>
            <span>Engagement Rate</span>
            <strong>{f.engagement_rate.toFixed(1)}%</strong>
          </StatRow>
          {connected.length > 0 && (
            <Muted>
              Over {connected.length} connected account{connected.length === 1 ? '' : 's'}:{' '}
              {connected.map((a) => `${platformLabel(a.platform)} @${a.handle}`).join(', ')}.
            </Muted>
          )}
        </>
      )}
    </Card>
  );
}
