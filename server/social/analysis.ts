import sentiment from 'wink-sentiment';
import type { Platform, SocialPost, SocialProfile } from './provider';

/**
 * What one account's public profile and recent posts say, as four components out of 100, each
 * with its evidence (docs/social.md). The database combines the accounts of a person and adds the
 * fifth, consistency (supabase/schemas/social.sql, private.social_analysis).
 *
 *   reach        100 x log10(1 + followers) / 7: 10 million followers is all of it;
 *   engagement   50 x the account's engagement rate / the platform's typical rate, at most 100:
 *                the typical rate is 50; the rate is (likes + replies + reposts) / followers per post;
 *   authenticity 100 less what the signs of bought followers or automation cost (AUTHENTICITY);
 *   tone         50 + 50 x (the share of positive posts - the share of negative ones), each post
 *                scored by wink-sentiment (an AFINN-based lexicon with negation and emoji).
 */

/** Each platform's typical engagement per post, as a share of followers: engagement's yardstick. */
export const TYPICAL_RATE: Record<Platform, number> = {
  x: 0.01,
  instagram: 0.015,
  youtube: 0.02,
  tiktok: 0.04,
  linkedin: 0.02,
};

/** Each platform's name as people write it, in the evidence's and the checks' words. */
export const PLATFORM_NAMES: Record<Platform, string> = {
  x: 'X',
  instagram: 'Instagram',
  youtube: 'YouTube',
  tiktok: 'TikTok',
  linkedin: 'LinkedIn',
};

/** The signs of bought followers or automation: when each counts, and what it costs. */
const AUTHENTICITY = {
  /** Many followers, tiny engagement: at least this many followers, under this share of the typical rate. */
  anomaly: { followers: 10_000, ofTypical: 0.1, cost: 40 },
  /** A day on which followers grew by more than this share. */
  burst: { share: 0.2, cost: 25 },
  /** This share of posts within 2 seconds of the minute (by chance, about 8%). */
  onTheMinute: { share: 0.5, cost: 20 },
  /** Intervals between posts this regular (their coefficient of variation), over 10 posts or more. */
  regular: { variation: 0.1, posts: 10, cost: 15 },
  /** This share of posts repeating an earlier post's text. */
  duplicates: { share: 0.2, cost: 20 },
  /** Following this share of its own follower count (with 1,000 followers or more). */
  followBack: { share: 0.9, followers: 1000, cost: 10 },
};

export interface AccountRead {
  followers: number;
  following: number;
  accountCreated: string;
  verified: boolean;
  /** Percent, per post. */
  engagementRate: number;
  postsRead: number;
  components: {
    reach: number;
    engagement: number;
    authenticity: number;
    tone: number;
    evidence: { reach: string; engagement: string; tone: string };
    warnings: string[];
  };
  /** The posts cited as evidence: the only posts kept. */
  evidence: (SocialPost & { reason: string })[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;
/** A share as people write it: 3.1%, and two significant digits under 1% (0.019%). */
const percent = (share: number) =>
  `${share > 0 && share < 0.01 ? Number((share * 100).toPrecision(2)) : round1(share * 100)}%`;
const count = (n: number) => n.toLocaleString('en-US');
const normalized = (text: string) => text.toLowerCase().replace(/\W+/g, ' ').trim();

/** Each post's sentiment: above 0 positive, below 0 negative. */
const postTone = (text: string) => sentiment(text).normalizedScore;

export function analyseAccount(platform: Platform, profile: SocialProfile, posts: SocialPost[]): AccountRead {
  const typical = TYPICAL_RATE[platform];
  const followers = Math.max(0, profile.followers);
  const perPost = posts.map((p) => (followers > 0 ? (p.likes + p.replies + p.reposts) / followers : 0));
  const rate = perPost.length ? perPost.reduce((a, b) => a + b, 0) / perPost.length : 0;

  const reach = Math.min(100, (100 * Math.log10(1 + followers)) / 7);
  const engagement = Math.min(100, (50 * rate) / typical);

  const warnings: { text: string; cost: number }[] = [];
  const a = AUTHENTICITY;
  if (followers >= a.anomaly.followers && rate < typical * a.anomaly.ofTypical)
    warnings.push({
      text: `engagement ${percent(rate)} with ${count(followers)} followers: under a tenth of the typical ${percent(typical)}`,
      cost: a.anomaly.cost,
    });
  const history = profile.followerHistory ?? [];
  let burst = { share: 0, day: '' };
  for (let i = 1; i < history.length; i++) {
    const before = history[i - 1]!.followers;
    const share = before > 0 ? history[i]!.followers / before - 1 : 0;
    if (share > burst.share) burst = { share, day: history[i]!.day };
  }
  if (burst.share > a.burst.share)
    warnings.push({ text: `followers grew ${percent(burst.share)} in one day (${burst.day})`, cost: a.burst.cost });
  const times = posts.map((p) => Date.parse(p.postedAt));
  const onMinute = times.filter((t) => {
    const s = (t / 1000) % 60;
    return s <= 2 || s >= 58;
  }).length;
  if (posts.length && onMinute / posts.length >= a.onTheMinute.share)
    warnings.push({
      text: `${percent(onMinute / posts.length)} of posts within 2 seconds of the minute`,
      cost: a.onTheMinute.cost,
    });
  const gaps = times.slice(1).map((t, i) => Math.abs(times[i]! - t));
  if (posts.length >= a.regular.posts && gaps.length) {
    const mean = gaps.reduce((x, y) => x + y, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((x, g) => x + (g - mean) ** 2, 0) / gaps.length);
    if (mean > 0 && sd / mean < a.regular.variation)
      warnings.push({
        text: `a post every ${round1(mean / 60_000)} minutes, varying ${percent(sd / mean)}`,
        cost: a.regular.cost,
      });
  }
  const seen = new Set<string>();
  let repeats = 0;
  let repeated: SocialPost | undefined;
  for (const p of posts) {
    const key = normalized(p.text);
    if (seen.has(key)) {
      repeats++;
      repeated ??= p;
    } else seen.add(key);
  }
  if (posts.length && repeats / posts.length >= a.duplicates.share)
    warnings.push({
      text: `${percent(repeats / posts.length)} of posts repeat an earlier post's text`,
      cost: a.duplicates.cost,
    });
  if (followers >= a.followBack.followers && profile.following >= followers * a.followBack.share)
    warnings.push({
      text: `follows ${count(profile.following)} accounts, ${percent(profile.following / followers)} of its followers`,
      cost: a.followBack.cost,
    });
  const authenticity = Math.max(0, 100 - warnings.reduce((n, w) => n + w.cost, 0));

  const tones = posts.map((p) => postTone(p.text));
  const positive = tones.filter((t) => t > 0).length;
  const negative = tones.filter((t) => t < 0).length;
  const tone = posts.length ? 50 + (50 * (positive - negative)) / posts.length : 50;

  // The posts cited: the most engaged, the most negative, and a repeated one, where there are any.
  const cited: (SocialPost & { reason: string })[] = [];
  const engaged = posts.reduce<SocialPost | undefined>(
    (best, p) => (!best || p.likes + p.replies + p.reposts > best.likes + best.replies + best.reposts ? p : best),
    undefined,
  );
  if (engaged) cited.push({ ...engaged, reason: 'most engaged' });
  const worst = tones.indexOf(Math.min(...tones));
  if (negative > 0 && posts[worst] !== engaged) cited.push({ ...posts[worst]!, reason: 'most negative' });
  if (repeated && !cited.some((c) => c.postedAt === repeated.postedAt))
    cited.push({ ...repeated, reason: 'repeated text' });

  return {
    followers,
    following: profile.following,
    accountCreated: profile.createdOn,
    verified: profile.verified,
    engagementRate: Math.round(rate * 1_000_000) / 10_000,
    postsRead: posts.length,
    components: {
      reach: round1(reach),
      engagement: round1(engagement),
      authenticity,
      tone: round1(tone),
      evidence: {
        reach: `${count(followers)} followers on ${PLATFORM_NAMES[platform]}`,
        engagement: `engagement ${percent(rate)} against a typical ${percent(typical)} on ${PLATFORM_NAMES[platform]}`,
        tone: `${percent(posts.length ? positive / posts.length : 0)} of ${posts.length} recent posts on ${PLATFORM_NAMES[platform]} positive, ${percent(
          posts.length ? negative / posts.length : 0,
        )} negative`,
      },
      warnings: warnings.map((w) => w.text),
    },
    evidence: cited,
  };
}
