import type { SupabaseClient } from '@supabase/supabase-js';
import { adminSuite } from './harness/suites';
import { ENGINES, eventually } from './harness/backends';
import { trader, type Trader } from './harness/market';

interface Analysis {
  score: number;
  components: Record<string, { value: number; weight: number; share: number; evidence?: string }>;
  warnings?: string[];
  accounts?: { platform: string; handle: string; followers: number }[];
}

/*
 * Connected accounts through the real server, its social worker and the simulated platform
 * (server/social/simulated.ts): a phrase, the check, the analysis, the disconnection.
 */
describe.each(ENGINES)('connected social accounts on %s', (engine) => {
  const suite = adminSuite(engine);

  /** Starts connecting a handle and asks for the check; resolves to the account as the worker left it. */
  async function connect(c: SupabaseClient, platform: string, handle: string) {
    const started = await c.rpc('start_social_connection', { p_platform: platform, p_handle: handle });
    expect(started.error).toBeNull();
    expect((started.data as { phrase: string }).phrase).toMatch(/^repx-[0-9a-f]{10}$/);
    expect((await c.rpc('check_social_connection', { p_platform: platform })).error).toBeNull();
    return eventually(async () => {
      const { data } = await c
        .from('social_accounts')
        .select('id, status, message, followers, following, engagement_rate, analysis')
        .eq('platform', platform)
        .single();
      return data && ['connected', 'failed'].includes(data.status) ? data : undefined;
    }, 20_000);
  }
  const analysis = async (c: SupabaseClient, user: string) =>
    (await c.rpc('social_analysis', { p_user: user })).data as Analysis | null;
  const count = async (sql: string, id: unknown) =>
    Number((await suite.backend.db.query<{ n: string }>(sql, [id]))[0]!.n);

  it('connects a proven handle, analyses it, and deletes all of it on disconnection', async () => {
    const person = await trader(suite.backend);
    const account = await connect(person.client, 'x', 'genuine_creator');
    expect(account).toMatchObject({ status: 'connected', message: null, followers: 48_200, following: 610 });
    expect(account.analysis).toMatchObject({ reach: 66.9, engagement: 100, authenticity: 100, tone: 87.5 });

    // The profile's Social Impact figures are the connected accounts'.
    const impact = async () =>
      (
        await person.client
          .from('profiles')
          .select('followers, following, engagement_rate')
          .eq('id', person.id)
          .single()
      ).data;
    expect(await impact()).toEqual({ followers: 48_200, following: 610, engagement_rate: 3.08 });

    const mine = (await analysis(person.client, person.id))!;
    // One account: consistency is the neutral 50; the score is the weighted sum of the five.
    const expected = (66.9 * 25 + 100 * 20 + 100 * 25 + 87.5 * 15 + 50 * 15) / 100;
    expect(mine.score).toBeCloseTo(expected, 1);
    expect(mine.components.engagement).toEqual({
      value: 100,
      weight: 20,
      share: Math.round(((100 * 20) / 100 / expected) * 1000) / 10,
      evidence: 'engagement 3.1% against a typical 1% on X',
    });
    expect(mine.accounts).toEqual([
      expect.objectContaining({ platform: 'x', handle: 'genuine_creator', followers: 48_200 }),
    ]);
    const { data: cited } = await person.client.from('social_evidence').select('reason, text');
    expect(cited!.map((e) => e.reason)).toEqual(['most engaged']);
    const [month] = await suite.backend.db.query<{ score: string }>(
      'select score from social_history where user_id = $1',
      [person.id],
    );
    expect(Number(month!.score)).toBeCloseTo(expected, 1);

    // Refreshing within the hour is refused in words.
    expect((await person.client.rpc('refresh_social_accounts', {})).error?.message).toMatch(
      /^Your accounts were read less than an hour ago: refresh again after \d\d:\d\d UTC\.$/,
    );

    expect((await person.client.rpc('disconnect_social_account', { p_platform: 'x' })).error).toBeNull();
    expect(await count('select count(*) as n from social_accounts where user_id = $1', person.id)).toBe(0);
    expect(await count('select count(*) as n from social_evidence where account_id = $1', account.id)).toBe(0);
    expect(await count('select count(*) as n from private.social_reads where account_id = $1', account.id)).toBe(0);
    expect(await analysis(person.client, person.id)).toBeNull();
    expect(await impact()).toEqual({ followers: 0, following: 0, engagement_rate: 0 });
    expect((await person.client.rpc('disconnect_social_account', { p_platform: 'x' })).error?.message).toBe(
      'No X account is connected.',
    );
  });

  it('refuses a handle it cannot prove, bad input, a handle someone else holds, and too many checks', async () => {
    const person = await trader(suite.backend);
    expect(await connect(person.client, 'instagram', 'cannot_prove')).toMatchObject({
      status: 'failed',
      message: 'The phrase is not in the bio of @cannot_prove on Instagram. Add it, then check again.',
      followers: null,
    });
    const start = (platform: string, handle: string) =>
      person.client.rpc('start_social_connection', { p_platform: platform, p_handle: handle });
    expect((await start('myspace', 'tom')).error?.message).toBe('Choose X, Instagram, YouTube, TikTok or LinkedIn.');
    expect((await start('x', 'no spaces')).error?.message).toBe(
      'The X handle "no spaces" is not valid: letters, digits, dots, dashes and underscores only.',
    );
    const holder = await trader(suite.backend);
    expect((await connect(holder.client, 'tiktok', 'Taken_Handle')).status).toBe('connected');
    expect((await start('tiktok', '@taken_handle')).error?.message).toBe(
      '@taken_handle on TikTok is connected to another RepX account.',
    );
    expect((await person.client.rpc('check_social_connection', { p_platform: 'youtube' })).error?.message).toBe(
      'Start connecting your YouTube account first.',
    );
    // Two people start on one handle: the first proven holds it, the second's check says so.
    const [first, second] = [await trader(suite.backend), await trader(suite.backend)];
    for (const t of [first, second])
      expect(
        (await t.client.rpc('start_social_connection', { p_platform: 'linkedin', p_handle: 'race_handle' })).error,
      ).toBeNull();
    expect((await connect(first.client, 'linkedin', 'race_handle')).status).toBe('connected');
    expect((await second.client.rpc('check_social_connection', { p_platform: 'linkedin' })).error).toBeNull();
    const lost = await eventually(async () => {
      const { data } = await second.client.from('social_accounts').select('status, message').single();
      return data?.status === 'failed' ? data : undefined;
    }, 20_000);
    expect(lost.message).toBe('@race_handle on LinkedIn is connected to another RepX account.');
    // Ten checks an hour: the first was the instagram one.
    expect((await start('youtube', 'cannot_prove')).error).toBeNull();
    for (let i = 0; i < 9; i++)
      expect((await person.client.rpc('check_social_connection', { p_platform: 'youtube' })).error).toBeNull();
    expect((await person.client.rpc('check_social_connection', { p_platform: 'youtube' })).error?.message).toBe(
      'Too many checks in the last hour: try again later.',
    );
  });

  it('an application lists the connected accounts; the admin reads the analysis and its warnings; the score gains its social part', async () => {
    const person = await trader(suite.backend);
    await connect(person.client, 'x', 'genuine_creator');
    await connect(person.client, 'instagram', 'bought_followers');
    const { data: applied, error } = await person.client.rpc('apply_for_token', {
      p_display_name: 'Social Person',
      p_category: 'Designer',
    });
    expect(error).toBeNull();
    expect((applied as { socials: unknown }).socials).toEqual([
      {
        platform: 'instagram',
        handle: 'bought_followers',
        url: 'https://instagram.com/bought_followers',
        followers: 850_000,
      },
      { platform: 'x', handle: 'genuine_creator', url: 'https://x.com/genuine_creator', followers: 48_200 },
    ]);

    const { data: listed } = await suite.admin.rpc('admin_list_applications', {});
    const review = (listed as { id: number; analysis: Analysis }[]).find(
      (a) => a.id === (applied as { id: number }).id,
    )!;
    // The weakest account's authenticity is the person's; its warnings are named, by platform.
    expect(review.analysis.components.authenticity!.value).toBe(25);
    expect(review.analysis.warnings).toEqual([
      'instagram: engagement 0.019% with 850,000 followers: under a tenth of the typical 1.5%',
      'instagram: followers grew 45% in one day (2026-11-01)',
      'instagram: follows 812,000 accounts, 95.5% of its followers',
    ]);
    expect(review.analysis.components.consistency!.evidence).toMatch(
      /^2 platforms, their engagement and tone within \d+ points/,
    );

    // Another user reads the published components only: no evidence, warnings or accounts.
    const other: Trader = await trader(suite.backend);
    const published = (await analysis(other.client, person.id))!;
    expect(Object.keys(published).sort()).toEqual(['analysed_at', 'components', 'score']);
    expect(published.components.tone).toEqual({
      value: review.analysis.components.tone!.value,
      weight: 15,
      share: review.analysis.components.tone!.share,
    });
    expect((await other.client.from('social_accounts').select('id').eq('user_id', person.id)).data).toEqual([]);
    expect((await other.client.from('social_evidence').select('id')).data).toEqual([]);

    // Approved, the token's score has a social part of 20 x the analysis's score / 100.
    const approved = await suite.admin.rpc('admin_approve_application', { p_id: (applied as { id: number }).id });
    expect(approved.error).toBeNull();
    const token = (approved.data as { token_id: string }).token_id;
    const { data: parts } = await other.client.rpc('reputation_components', { p_token: token });
    const c = parts as Record<string, number> & { facts: { social_score: number } };
    expect(c.facts.social_score).toBe(review.analysis.score);
    expect(c.social).toBeCloseTo((20 * review.analysis.score) / 100, 2);
    const sum = c.verified + c.holders + c.volume + c.stability + c.age + c.alerts + c.social;
    expect(c.score).toBeCloseTo(sum, 1);
    // Disconnecting both takes the social part away at once.
    for (const platform of ['x', 'instagram'])
      expect((await person.client.rpc('disconnect_social_account', { p_platform: platform })).error).toBeNull();
    const { data: after } = await other.client.rpc('reputation_components', { p_token: token });
    expect((after as { social: number }).social).toBe(0);
    const { data: score } = await other.client.from('tokens').select('reputation_score').eq('id', token).single();
    expect(score!.reputation_score).toBe((after as { score: number }).score);
  });
});
