import { Link } from 'react-router';
import styled from 'styled-components';
import { useQuery } from '@repex/shared-ui/platform';
import { Badge, Card, CardTitle, Muted, Skeleton } from '@repex/shared-ui/ui';
import { loadIntegrity } from './data';

const Reading = styled.ul`
  margin: 8px 0 12px;
  padding-left: 18px;
  display: flex;
  flex-direction: column;
  gap: 6px;
  font-size: 14px;
  line-height: 1.45;
`;
const Head = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 8px;
`;

const Footnote = styled(Muted).attrs({ as: 'p' })`
  font-size: 13px;
  a {
    color: ${({ theme }) => theme.colors.accent};
    text-decoration: underline;
  }
`;

const LEVEL = {
  good: { label: 'Nothing unusual', variant: 'up' },
  watch: { label: 'Worth a look', variant: 'secondary' },
  concern: { label: 'Manipulation found', variant: 'down' },
} as const;

/** What surveillance and the book say of this token's market over 30 days, in plain words. */
export function IntegrityCard({ tokenId }: { tokenId: string }) {
  const integrity = useQuery(() => loadIntegrity(tokenId), [tokenId]);
  const i = integrity.data;
  return (
    <Card aria-label="Market Integrity">
      <Head>
        <CardTitle style={{ margin: 0 }}>Market Integrity</CardTitle>
        {i && <Badge $variant={LEVEL[i.level].variant}>{LEVEL[i.level].label}</Badge>}
      </Head>
      {integrity.error && !i ? (
        <Muted as="p">The integrity figures could not be loaded: {integrity.error.message}</Muted>
      ) : !i ? (
        <Skeleton $height="120px" />
      ) : (
        <Reading>
          {i.reading.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </Reading>
      )}
      <Footnote>
        The last 30 days, from RepX&rsquo;s own records. <Link to="/fair-market">How we keep the market fair</Link>
      </Footnote>
    </Card>
  );
}
