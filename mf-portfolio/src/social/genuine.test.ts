import type { SocialAnalysis } from '@repex/shared-ui/contracts';
import { genuineFollowers } from './genuine';

const analysis = (authenticity: number) =>
  ({
    score: 50,
    analysed_at: '2026-11-28T00:00:00Z',
    components: {
      reach: { value: 80, weight: 0.2, share: 16 },
      engagement: { value: 10, weight: 0.25, share: 2.5 },
      authenticity: { value: authenticity, weight: 0.25, share: authenticity / 4 },
      tone: { value: 60, weight: 0.15, share: 9 },
      consistency: { value: 70, weight: 0.15, share: 10.5 },
    },
  }) satisfies SocialAnalysis;

describe('followers counted by authenticity', () => {
  it('says how many of a doubted audience count, beside the headline', () => {
    expect(genuineFollowers(898_200, analysis(5.37))).toBe('About 48,233 count as genuine (authenticity 5.4/100)');
  });
  it('says nothing when the analysis does not doubt the audience, or there is none', () => {
    expect(genuineFollowers(898_200, analysis(100))).toBeNull();
    expect(genuineFollowers(898_200, null)).toBeNull();
    expect(genuineFollowers(0, analysis(10))).toBeNull();
  });
});
