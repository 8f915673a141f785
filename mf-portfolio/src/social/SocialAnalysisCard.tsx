import type { SocialAnalysis } from '@repex/shared-ui/contracts';
import { Card, SocialAnalysisView } from '@repex/shared-ui/ui';

/** The profile's automated reputation analysis of the user's connected accounts. */
export function SocialAnalysisCard({ analysis }: { analysis: SocialAnalysis }) {
  return (
    <Card data-testid="social-analysis" style={{ gridColumn: '1 / -1' }}>
      <SocialAnalysisView analysis={analysis} whose="your" />
    </Card>
  );
}
