import fc from 'fast-check';
import { analyseAccount } from './analysis';
import type { SocialPost, SocialProfile } from './provider';
import { simulatedSocialProvider } from './simulated';

const provider = simulatedSocialProvider(0);
const read = async (handle: string, platform: 'x' | 'instagram' = 'x') =>
  analyseAccount(platform, (await provider.profile(platform, handle))!, await provider.posts(platform, handle, 40));

describe('the analysis of each documented test handle (docs/social.md)', () => {
  it('a genuine creator: a real audience, engaged above the typical rate, friendly, nothing suspicious', async () => {
    const r = await read('genuine_creator');
    expect(r.components).toMatchObject({ reach: 66.9, engagement: 100, authenticity: 100, tone: 87.5, warnings: [] });
    expect(r.components.evidence.engagement).toBe('engagement 3.1% against a typical 1% on X');
  });

  it('bought followers: engagement far under the typical rate, a burst of followers, following as many as follow it', async () => {
    const r = await read('bought_followers');
    expect(r.components).toMatchObject({ reach: 84.7, authenticity: 25 });
    expect(r.components.engagement).toBeLessThan(1);
    expect(r.components.warnings).toEqual([
      'engagement 0.019% with 850,000 followers: under a tenth of the typical 1%',
      'followers grew 45% in one day (2026-11-01)',
      'follows 812,000 accounts, 95.5% of its followers',
    ]);
  });

  it('a bot-like poster: on the minute, every ten minutes, the same texts', async () => {
    const r = await read('bot_poster');
    expect(r.components.authenticity).toBe(45);
    expect(r.components.warnings).toEqual([
      '100% of posts within 2 seconds of the minute',
      'a post every 10 minutes, varying 0%',
      "92.5% of posts repeat an earlier post's text",
    ]);
    expect(r.evidence.map((e) => e.reason)).toContain('repeated text');
  });

  it('a hostile poster: mostly negative posts, the worst cited', async () => {
    const r = await read('hostile_poster');
    expect(r.components).toMatchObject({ tone: 12.5, authenticity: 100 });
    expect(r.components.evidence.tone).toBe('5% of 40 recent posts on X positive, 80% negative');
    expect(r.evidence.find((e) => e.reason === 'most negative')?.text).toMatch(
      /terrible|pathetic|useless|idiots|Awful/,
    );
  });

  it('an account that cannot be proven is refused; any other is proven', async () => {
    await expect(provider.prove('x', 'cannot_prove', 'repx-1')).resolves.toEqual({
      proven: false,
      message: 'The phrase is not in the bio of @cannot_prove on X. Add it, then check again.',
    });
    await expect(provider.prove('x', 'genuine_creator', 'repx-1')).resolves.toEqual({ proven: true });
  });

  it('reads the same story every time', async () => {
    expect(await read('someone_else', 'instagram')).toEqual(await read('someone_else', 'instagram'));
  });
});

/** A plain account to vary: 40 distinct, neutral posts at human times. */
const base = (followers: number, likes: number): { profile: SocialProfile; posts: SocialPost[] } => ({
  profile: { handle: 'p', followers, following: 100, createdOn: '2020-01-01', verified: false },
  posts: Array.from({ length: 40 }, (_, i) => ({
    text: `Notes from session ${i} are up`,
    postedAt: new Date(Date.parse('2026-11-01T00:00:00Z') - i * 3_700_123 - (i % 7) * 17_000).toISOString(),
    likes,
    replies: 0,
    reposts: 0,
  })),
});

describe('each component moves the right way when its input does (property tests)', () => {
  it('reach grows with followers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50_000_000 }), fc.integer({ min: 1, max: 1_000_000 }), (f, more) => {
        const a = base(f, 0);
        const b = base(f + more, 0);
        expect(analyseAccount('x', b.profile, b.posts).components.reach).toBeGreaterThanOrEqual(
          analyseAccount('x', a.profile, a.posts).components.reach,
        );
      }),
    );
  });

  it('engagement grows with likes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 1_000_000 }),
        fc.nat(5000),
        fc.integer({ min: 1, max: 5000 }),
        (f, likes, more) => {
          const a = base(f, likes);
          const b = base(f, likes + more);
          expect(analyseAccount('x', b.profile, b.posts).components.engagement).toBeGreaterThanOrEqual(
            analyseAccount('x', a.profile, a.posts).components.engagement,
          );
        },
      ),
    );
  });

  it('authenticity falls as posts repeat, posting turns regular, or following nears the follower count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1000, max: 100_000 }), (repeats, f) => {
        const a = base(f, Math.round(f * 0.02));
        const b = base(f, Math.round(f * 0.02));
        b.posts = b.posts.map((p, i) => (i < repeats ? { ...p, text: 'Same text every time' } : p));
        const before = analyseAccount('x', a.profile, a.posts).components.authenticity;
        expect(analyseAccount('x', b.profile, b.posts).components.authenticity).toBeLessThanOrEqual(before);
        const c = base(f, Math.round(f * 0.02));
        c.profile.following = f;
        expect(analyseAccount('x', c.profile, c.posts).components.authenticity).toBeLessThanOrEqual(before);
        const d = base(f, Math.round(f * 0.02));
        d.posts = d.posts.map((p, i) => ({
          ...p,
          postedAt: new Date(Date.parse('2026-11-01T00:00:00Z') - i * 600_000).toISOString(),
        }));
        expect(analyseAccount('x', d.profile, d.posts).components.authenticity).toBeLessThanOrEqual(before);
      }),
    );
  });

  it('tone falls as hostile posts replace neutral ones', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 39 }), fc.integer({ min: 1, max: 40 }), (n, more) => {
        const hostile = (k: number) => {
          const a = base(5000, 100);
          a.posts = a.posts.map((p, i) => (i < k ? { ...p, text: `This is terrible and awful, number ${i}` } : p));
          return analyseAccount('x', a.profile, a.posts).components.tone;
        };
        expect(hostile(Math.min(40, n + more))).toBeLessThanOrEqual(hostile(n));
      }),
    );
  });
});
