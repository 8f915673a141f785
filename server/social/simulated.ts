import { PLATFORM_NAMES, TYPICAL_RATE } from './analysis';
import type { Platform, SocialPost, SocialProfile, SocialProvider } from './provider';

/**
 * The built-in platform, as the payment rail is: its data depends only on the platform and the
 * handle, so every read of one handle tells the same story, and a test knows what it will find.
 * It behaves as if the person had put the phrase in their bio, except for `cannot_prove`.
 *
 * Test handles (docs/social.md walks through what the analysis finds for each):
 *   genuine_creator  - a real audience: steady growth, engagement above the platform's typical
 *                      rate, posts at human times, mostly friendly;
 *   bought_followers - 850,000 followers, engagement a fraction of the typical rate, bursts of
 *                      new followers, and following almost as many as follow it;
 *   bot_poster       - posts every ten minutes on the minute, the same few texts over and over;
 *   hostile_poster   - most recent posts attack or complain;
 *   cannot_prove     - the phrase never appears in its bio.
 * Any other handle is an ordinary account drawn from the handle's hash.
 */
/** Every simulated read is as of this moment, so a handle's story never moves with the clock. */
const NOW = Date.parse('2026-11-20T12:00:00Z');
const POSTS = 40;

const FRIENDLY = [
  'Thank you all for the kind words on the new series, it means a lot',
  'Loved working with this amazing team today, great energy',
  'New tutorial is up: a simple way to plan your week, hope it helps',
  'Happy to share that the workshop sold out, thank you',
  'Beautiful morning for a long walk and a good idea',
  'Proud of what we built this year together, excited for what comes next',
];
const NEUTRAL = [
  'Notes from the talk are in the thread below',
  'Working on the next chapter this week',
  'Live at 6pm to answer questions about the process',
  'The slides from yesterday are on the site now',
];
const HOSTILE = [
  'This is the worst service I have ever used, absolutely terrible',
  'Stop lying to people, you are pathetic and everyone knows it',
  'Another useless update from a company that hates its users',
  'I am sick of these idiots ruining everything',
  'Awful, disgusting behaviour, shame on all of you',
];
/** What makes each of a person's posts its own: 40 different endings. */
const WHEN = [
  'this morning',
  'tonight',
  'this week',
  'on the podcast',
  'at the studio',
  'in Lisbon',
  'for the newsletter',
  'with the crew',
];
const PART = ['', ' again', ', part two', ', part three', ' with all of you'];
const detail = (i: number) => ` ${WHEN[i % WHEN.length]}${PART[Math.floor(i / WHEN.length) % PART.length]}`;
const SPAM = [
  'Follow for follow! Best deals here',
  'Click the link in bio for free crypto',
  'Best deals here today only',
];

/** A small seeded generator (mulberry32): the same text gives the same numbers (a handle here; the surveillance suite's seed). */
export function seeded(text: string) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Story {
  followers: number;
  following: number;
  createdOn: string;
  verified: boolean;
  /** Engagement per post as a share of followers. */
  rate: number;
  /** Daily growth, and days on which the count jumped by this share. */
  growth: number;
  bursts: { daysAgo: number; share: number }[];
  texts: (random: () => number, i: number) => string;
  /** Seconds between posts, and whether they fall on the minute. */
  spacing: (random: () => number) => number;
  onTheMinute: boolean;
}

function story(platform: Platform, handle: string, random: () => number): Story {
  const human = (r: () => number) => 3600 * (2 + 20 * r());
  switch (handle.toLowerCase()) {
    case 'genuine_creator':
      return {
        followers: 48_200,
        following: 610,
        createdOn: '2016-03-14',
        verified: true,
        rate: 0.031,
        growth: 0.002,
        bursts: [],
        texts: (r, i) =>
          (i % 4 === 3 ? NEUTRAL[i % NEUTRAL.length]! : FRIENDLY[Math.floor(r() * FRIENDLY.length)]!) + detail(i),
        spacing: human,
        onTheMinute: false,
      };
    case 'bought_followers':
      return {
        followers: 850_000,
        following: 812_000,
        createdOn: '2025-09-01',
        verified: false,
        rate: 0.0002,
        growth: 0.001,
        bursts: [
          { daysAgo: 19, share: 0.45 },
          { daysAgo: 6, share: 0.38 },
        ],
        texts: (r, i) => NEUTRAL[Math.floor(r() * NEUTRAL.length)]! + detail(i),
        spacing: human,
        onTheMinute: false,
      };
    case 'bot_poster':
      return {
        followers: 12_400,
        following: 3_100,
        createdOn: '2024-01-20',
        verified: false,
        rate: 0.004,
        growth: 0.001,
        bursts: [],
        texts: (_r, i) => SPAM[i % SPAM.length]!,
        spacing: () => 600,
        onTheMinute: true,
      };
    case 'hostile_poster':
      return {
        followers: 23_000,
        following: 900,
        createdOn: '2019-07-02',
        verified: false,
        rate: 0.012,
        growth: 0.001,
        bursts: [],
        texts: (r, i) =>
          (i % 5 === 4 ? NEUTRAL[i % NEUTRAL.length]! : HOSTILE[Math.floor(r() * HOSTILE.length)]!) + detail(i),
        spacing: human,
        onTheMinute: false,
      };
    default: {
      const followers = Math.round(10 ** (2.5 + 2.5 * random()));
      return {
        followers,
        following: Math.round(followers * (0.05 + 0.3 * random())),
        createdOn: `20${10 + Math.floor(random() * 14)}-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}`,
        verified: false,
        rate: TYPICAL_RATE[platform] * (0.5 + random()),
        growth: 0.001,
        bursts: [],
        texts: (r, i) => (i % 3 === 0 ? NEUTRAL : FRIENDLY)[Math.floor(r() * 4)]! + detail(i),
        spacing: human,
        onTheMinute: false,
      };
    }
  }
}

export function simulatedSocialProvider(delayMs = 0): SocialProvider {
  const pause = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  const read = (platform: Platform, handle: string) => {
    const random = seeded(`${platform}:${handle.toLowerCase()}`);
    return { random, s: story(platform, handle, random) };
  };
  return {
    name: 'simulated',
    async prove(platform, handle) {
      await pause();
      return handle.toLowerCase() === 'cannot_prove'
        ? {
            proven: false,
            message: `The phrase is not in the bio of @${handle} on ${PLATFORM_NAMES[platform]}. Add it, then check again.`,
          }
        : { proven: true };
    },
    async profile(platform, handle): Promise<SocialProfile> {
      await pause();
      const { s } = read(platform, handle);
      // Thirty days of counts, ending at today's, with the story's bursts.
      const history: { day: string; followers: number }[] = [];
      let count = s.followers;
      for (let d = 0; d < 30; d++) {
        history.unshift({
          day: new Date(NOW - d * 86_400_000).toISOString().slice(0, 10),
          followers: Math.round(count),
        });
        const burst = s.bursts.find((b) => b.daysAgo === d);
        count = burst ? count / (1 + burst.share) : count / (1 + s.growth);
      }
      return {
        handle,
        followers: s.followers,
        following: s.following,
        createdOn: s.createdOn,
        verified: s.verified,
        followerHistory: history,
      };
    },
    async posts(platform, handle, limit): Promise<SocialPost[]> {
      await pause();
      const { random, s } = read(platform, handle);
      const posts: SocialPost[] = [];
      let at = NOW - 1800_000;
      for (let i = 0; i < Math.min(limit, POSTS); i++) {
        if (s.onTheMinute) at = Math.floor(at / 60_000) * 60_000;
        else at -= Math.floor(random() * 59_000); // anywhere in the minute
        const engagement = s.followers * s.rate * (0.6 + 0.8 * random());
        posts.push({
          text: s.texts(random, i),
          postedAt: new Date(at).toISOString(),
          likes: Math.round(engagement * 0.8),
          replies: Math.round(engagement * 0.12),
          reposts: Math.round(engagement * 0.08),
          views: platform === 'youtube' || platform === 'tiktok' ? Math.round(s.followers * 0.4) : undefined,
        });
        at -= s.spacing(random) * 1000;
      }
      return posts;
    },
  };
}
