import styled from 'styled-components';
import { Button, Card, CardTitle, Muted, formatInteger } from '@repex/shared-ui/ui';
import { platformLabel, type SocialAccount } from './data';
import { socialFigures } from './socialFigures';

const Line = styled.div`
  display: flex;
  justify-content: space-between;
  gap: 12px;
  padding: 6px 0;
`;

/** Social Impact: the connected accounts' own figures, or how to show them. */
export function SocialImpact({
  accounts,
  onConnect,
}: {
  accounts: SocialAccount[] | undefined;
  onConnect: () => void;
}) {
  const f = socialFigures(accounts ?? []);
  return (
    <Card data-testid="social-impact">
      <CardTitle>Social Impact</CardTitle>
      {accounts && f.connected === 0 ? (
        <>
          <Muted as="p">Connect your social accounts to show your reach here and add it to your reputation.</Muted>
          <Button $size="sm" onClick={onConnect}>
            Connect accounts
          </Button>
        </>
      ) : (
        <>
          <Line>
            <span>Followers</span>
            <strong>{formatInteger(f.followers)}</strong>
          </Line>
          <Line>
            <span>Following</span>
            <strong>{formatInteger(f.following)}</strong>
          </Line>
          <Line>
            <span>Engagement Rate</span>
            <strong>{f.engagement.toFixed(1)}%</strong>
          </Line>
          <Muted>
            Over {f.connected} connected account{f.connected === 1 ? '' : 's'}:{' '}
            {(accounts ?? [])
              .filter((a) => a.status === 'connected')
              .map((a) => `${platformLabel(a.platform)} @${a.handle}`)
              .join(', ')}
            .
          </Muted>
        </>
      )}
    </Card>
  );
}
