import { performance } from 'node:perf_hooks';
import { newUser, SERVICE_ROLE_KEY, signedIn } from '../../integration/harness/clients';
import { DEMO_ACCOUNTS, DEMO_ANON_KEY } from '../../server/demo';
import { httpFetch } from '../lib/httpFetch';
import { benchBackend, overHttp, round1, round2, timeReads, type Engine, type Timing } from './common';
import { fleet, scrape } from './fanout';

/** The discussion's size: posts (a tenth of them replies), their authors, and reactions. */
export const DISCUSSION_POSTS = Number(process.env.BENCH_DISCUSSION_POSTS ?? 10_000);
const AUTHORS = 1_000;
const REACTIONS = 30_000;
/** Sockets watching the discussion while posts arrive, and how many posts. */
export const DISCUSSION_WATCHERS = Number(process.env.BENCH_DISCUSSION_WATCHERS ?? 1_000);
const POSTS_SENT = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();

export interface DiscussionBench {
  top_ms: Timing;
  new_ms: Timing;
  /** The fifth page of 'top'. */
  page_5_ms: Timing;
  watchers: number;
  delivered_pct: number;
  p50_ms: number;
  p95_ms: number;
  /** The server's database round trips per post, with one watcher and with them all. */
  db_per_post_alone: number;
  db_per_post_watched: number;
  /** The server's CPU the watchers added, per message delivered. */
  cpu_us_per_message: number | null;
}

/**
 * A token's discussion of DISCUSSION_POSTS posts by AUTHORS people with REACTIONS reactions: the
 * first page by 'top' and by 'new', and a later page, read over HTTP as the trading screen reads
 * it; then DISCUSSION_WATCHERS sockets watch the discussion while POSTS_SENT posts arrive, and
 * what each post costs the server (database round trips, CPU per delivered message) and how fast
 * it reaches them.
 */
export async function benchDiscussion(engine: Engine): Promise<DiscussionBench> {
  const { store, backend } = await benchBackend(engine, 'repex_bench_discussion', { seed: true });
  let token: string;
  try {
    const db = backend.db;
    [{ id: token }] = (await db.query<{ id: string }>(
      `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
       values ('Talked About', 'talkedabout', 'Designer', 60, 1000000, 10) returning id`,
    )) as [{ id: string }];
    await db.exec(`insert into auth.users (email, raw_user_meta_data)
      select 'talker' || g || '@bench.repx.dev', jsonb_build_object('username', 'talker' || g, 'full_name', 'Talker ' || g)
      from generate_series(1, ${AUTHORS}) g`);
    await db.exec(`create temporary table bench_authors as
      select row_number() over (order by id) as n, id from profiles where username like 'talker%'`);
    await db.exec(`insert into holdings (user_id, token_id, amount)
      select id, '${token}', 1 + n * 7 % 500 from bench_authors`);
    const top = Math.round(DISCUSSION_POSTS * 0.9);
    await db.exec(`insert into posts (token_id, author_id, body, held_then, standing, votes, created_at)
      select '${token}', a.id, 'Post ' || g || ': what I think of this person, at some length.', 10,
             (g % 17) / 4.0, (g % 23) / 3.0, now() - make_interval(mins => g * 3)
      from generate_series(1, ${top}) g join bench_authors a on a.n = 1 + g % ${AUTHORS}`);
    await db.exec(`insert into posts (token_id, author_id, reply_to, body, created_at)
      select '${token}', a.id, p.id, 'A reply ' || g, now() - make_interval(mins => g)
      from generate_series(1, ${DISCUSSION_POSTS - top}) g
      join bench_authors a on a.n = 1 + (g * 13) % ${AUTHORS}
      join lateral (select id from posts where token_id = '${token}' and reply_to is null
                    order by created_at desc offset (g % 200) limit 1) p on true`);
    await db.exec(`insert into private.post_reactions (post_id, user_id, kind, weight)
      select p.id, a.id, (array['like', 'insightful', 'disagree'])[1 + g % 3], 0.5
      from generate_series(1, ${REACTIONS}) g
      join lateral (select id from posts where token_id = '${token}' and reply_to is null
                    order by created_at desc offset (g % 2000) limit 1) p on true
      join bench_authors a on a.n = 1 + (g * 31) % ${AUTHORS}
      on conflict do nothing`);
    await db.exec('analyze');
  } finally {
    await backend.close();
  }

  return overHttp(
    store,
    async (url) => {
      const reader = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
      const read = (order: string, offset = 0) =>
        reader.rpc('token_posts', { p_token: token, p_order: order, p_offset: offset }, { get: true });
      const top_ms = await timeReads(() => read('top'));
      const new_ms = await timeReads(() => read('new'));
      const page_5_ms = await timeReads(() => read('top', 80));

      // Ten people post in turn: each stays within the post limit of one account.
      const posters = await Promise.all(Array.from({ length: 10 }, () => newUser(url, 'poster')));
      const accounts = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const u = await newUser(url, 'listener');
          return { id: u.id, token: (await u.client.auth.getSession()).data.session!.access_token };
        }),
      );
      const watchers = fleet();
      const key = await SERVICE_ROLE_KEY();
      // POSTS_SENT posts, one at a time: when each was sent, and what the server did meanwhile.
      const round = async () => {
        await watchers.ask({ cmd: 'reset' });
        const start = await scrape(url, key);
        const sent: number[] = [];
        for (let i = 0; i < POSTS_SENT; i++) {
          await sleep(150);
          const t = now();
          const { error } = await posters[i % posters.length]!.client.rpc('create_post', {
            p_token: token,
            p_body: `Live post ${i}`,
          });
          if (error) throw new Error(error.message);
          sent.push(t);
        }
        await sleep(3000);
        const stop = await scrape(url, key);
        return { sent, roundTrips: (stop.roundTrips - start.roundTrips) / POSTS_SENT, cpu: stop.cpu - start.cpu };
      };
      try {
        // One watcher first (the relay follows the messages' table only while someone listens):
        // the baseline the crowd's run is read beside.
        const connect = async (n: number) => {
          const joined = await watchers.ask<{ connected: number; joined: number }>({
            cmd: 'connect',
            n,
            url,
            apikey: DEMO_ANON_KEY,
            accounts,
            lanes: [token],
            topics: [`discussion:${token}`],
            marker: '"post"',
          });
          if (joined.joined < joined.connected)
            throw new Error(`only ${joined.joined} of ${joined.connected} watchers joined`);
          await sleep(500);
        };
        await connect(1);
        const alone = await round();
        await connect(DISCUSSION_WATCHERS - 1);
        const watched = await round();
        const heard = await watchers.ask<{ delivered: number; p50: number; p95: number }>({
          cmd: 'report',
          sent: [watched.sent],
        });
        return {
          top_ms,
          new_ms,
          page_5_ms,
          watchers: DISCUSSION_WATCHERS,
          delivered_pct: round1((100 * heard.delivered) / (POSTS_SENT * DISCUSSION_WATCHERS)),
          p50_ms: round1(heard.p50),
          p95_ms: round1(heard.p95),
          db_per_post_alone: round2(alone.roundTrips),
          db_per_post_watched: round2(watched.roundTrips),
          cpu_us_per_message: heard.delivered ? round1(((watched.cpu - alone.cpu) * 1e6) / heard.delivered) : null,
        };
      } finally {
        watchers.stop();
      }
    },
    { REALTIME_LIMITS: 'off', SERVER_PROCESSES: '1' },
  );
}
