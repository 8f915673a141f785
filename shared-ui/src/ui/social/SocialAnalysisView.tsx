import styled from 'styled-components';
import type { SocialAnalysis } from '../../contracts/results';
import { Badge } from '../primitives/Badge';
import { CardTitle } from '../primitives/Card';
import { Progress } from '../primitives/Progress';
import { Muted } from '../primitives/States';

const Line = styled.div`
  display: flex;
  justify-content: space-between;
  gap: 12px;
  padding: 6px 0;
`;
const Component = styled.li`
  padding: 8px 0;
  border-top: 1px solid ${({ theme }) => theme.colors.border};
  div {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    column-gap: 8px;
    margin-bottom: 4px;
  }
  p {
    margin: 4px 0 0;
    font-size: 13px;
    color: ${({ theme }) => theme.colors.muted};
    overflow-wrap: anywhere;
  }
`;
const Warning = styled.li`
  color: ${({ theme }) => theme.colors.warning};
  font-size: 14px;
  overflow-wrap: anywhere;
`;

const LABELS: Record<keyof SocialAnalysis['components'], string> = {
  reach: 'Reach',
  engagement: 'Engagement',
  authenticity: 'Authenticity',
  tone: 'Tone',
  consistency: 'Consistency',
};

/**
 * An automated reputation analysis of a person's connected accounts (supabase/schemas/social.sql):
 * the score, each component with its share of the score and, for the person and admins, its
 * evidence, then what looked wrong; named for what it is, with how it is computed. The profile
 * shows the person's own; the admin's application review shows the applicant's.
 */
export function SocialAnalysisView({ analysis, whose }: { analysis: SocialAnalysis; whose: string }) {
  const keys = Object.keys(LABELS) as (keyof SocialAnalysis['components'])[];
  return (
    <>
      <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: 8, flexWrap: 'wrap' }}>
        <CardTitle>Reputation Analysis</CardTitle>
        <Badge $variant="secondary">Automated</Badge>
      </div>
      <Line>
        <span>Score</span>
        <strong data-testid="social-score">{analysis.score.toFixed(1)} / 100</strong>
      </Line>
      <ul style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {keys.map((k) => {
          const c = analysis.components[k];
          return (
            <Component key={k} data-testid="social-component" data-component={k}>
              <div>
                <span>{LABELS[k]}</span>
                <span>
                  {c.value.toFixed(1)} / 100 · weight {c.weight} · {c.share.toFixed(1)}% of the score
                </span>
              </div>
              <Progress value={c.value} label={`${LABELS[k]} ${c.value} of 100`} />
              {c.evidence && <p>{c.evidence}</p>}
            </Component>
          );
        })}
      </ul>
      {analysis.warnings && analysis.warnings.length > 0 && (
        <>
          <strong>Warnings</strong>
          <ul data-testid="social-warnings">
            {analysis.warnings.map((w) => (
              <Warning key={w}>{w}</Warning>
            ))}
          </ul>
        </>
      )}
      <Muted as="p" style={{ marginBottom: 4 }}>
        An automated analysis of {whose} connected accounts&apos; public profiles and recent posts, read daily. It can
        be wrong; it is one part of {whose} reputation score, at most 20 of its 100 points.
      </Muted>
      <details>
        <summary>How it is computed</summary>
        <ul style={{ fontSize: 14 }}>
          <li>Reach: audience size on a log scale, per platform.</li>
          <li>Engagement: likes, replies and reposts per post, against the platform&apos;s typical rate.</li>
          <li>
            Authenticity: what signs of bought followers or automation cost: engagement far below the typical rate for
            the audience, bursts of new followers, posts on the minute or at machine-regular intervals, repeated text,
            following about as many accounts as follow it. The weakest account counts.
          </li>
          <li>Tone: the share of recent posts that read positive, less the share that read negative.</li>
          <li>Consistency: how alike the platforms are, and how steady engagement is over daily reads.</li>
        </ul>
      </details>
    </>
  );
}
