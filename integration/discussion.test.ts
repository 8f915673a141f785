import type { SupabaseClient } from '@supabase/supabase-js';
import type { Post } from '@repex/shared-ui/contracts';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ADMIN, DEMO, signedIn, subscribed } from './harness/clients';
import { freshToken, placeOrder, trader, type Trader } from './harness/market';

/** The discussion (discussion.sql): posts, the holders' room, reactions, moderation and 'top'. */
describe.each(ENGINES)('the discussion on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const posts = async (c: SupabaseClient, token: string, args: Record<string, unknown> = {}) => {
    const { data, error } = await c.rpc('token_posts', { p_token: token, ...args });
    if (error) throw new Error(error.message);
    return data as Post[];
  };
  const post = async (c: SupabaseClient, token: string, body: string, more: Record<string, unknown> = {}) =>
    c.rpc('create_post', { p_token: token, p_body: body, ...more });
  const count = async (table: string) =>
    Number((await backend.db.query<{ n: string }>(`select count(*) as n from ${table}`))[0]!.n);
  /** A token with its own person, as approval makes one. */
  const personToken = async (): Promise<{ token: string; person: Trader }> => {
    const token = await freshToken(backend, 10_000, 10);
    const person = await trader(backend);
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [person.id, token]);
    await backend.db.query('select private.issue_tokens($1, $2, 500)', [token, person.id]);
    return { token, person };
  };

  it('posts and replies with the author, their position and the person, and refuses bad posts in words', async () => {
    const { token, person } = await personToken();
    const holder = await trader(backend, { token, tokens: 50 });
    const { data: made, error } = await post(holder.client, token, '  First!  Read https://example.com <b>hi</b>  ');
    expect(error).toBeNull();
    const p = made as Post;
    expect(p.body).toBe('First!  Read https://example.com <b>hi</b>');
    expect(p.position).toMatchObject({ then: 50, now: 50, badge: 'Large holder', sold_since: false });
    expect(p.is_person).toBe(false);

    const refusals: [string, Record<string, unknown>, RegExp][] = [
      ['   ', {}, /Write something to post/],
      ['x'.repeat(1001), {}, /at most 1,000 characters; this one has 1,001/],
      ['evil \u202e text', {}, /invisible formatting characters/],
      ['reply', { p_reply_to: 999_999_999 }, /not there any more/],
      ['hi', { p_room: 'holders' }, /has no holders' room/],
    ];
    const before = await count('posts');
    for (const [body, more, message] of refusals) {
      const { error: refused } = await post(holder.client, token, body, more);
      expect(refused?.message).toMatch(message);
    }
    expect((await post(holder.client, crypto.randomUUID(), 'hi')).error?.message).toMatch(/does not exist/);
    expect(await count('posts')).toBe(before);

    // The person replies; a reply to a reply is refused; the thread reads with the reply under its post.
    const { data: reply } = await post(person.client, token, 'Thanks @' + (await username(holder)), {
      p_reply_to: p.id,
    });
    expect((reply as Post).is_person).toBe(true);
    expect((await post(holder.client, token, 'deeper', { p_reply_to: (reply as Post).id })).error?.message).toMatch(
      /replies have no replies/,
    );
    const [top] = await posts(holder.client, token, { p_order: 'new' });
    expect(top!.id).toBe(p.id);
    expect(top!.replies!.map((r) => r.body)).toEqual([(reply as Post).body]);

    // The holder sells: the badge says so, then and now.
    await backend.db.query('update holdings set amount = 5 where user_id = $1 and token_id = $2', [holder.id, token]);
    const [again] = await posts(person.client, token, { p_order: 'new' });
    expect(again!.position).toMatchObject({ then: 50, now: 5, sold_since: true, badge: 'Holder' });
  });

  it("sends a new public post live to those watching, the post itself, and a room's post only to its holders", async () => {
    const { token, person } = await personToken();
    const [watcher, poster] = [await trader(backend), await trader(backend, { token, tokens: 100 })];
    await person.client.rpc('open_holders_room', { p_token: token, p_min_tokens: 50 });
    const heard: { topic: string; payload: Partial<Post> }[] = [];
    const listen = async (c: SupabaseClient, topic: string) => {
      await c.realtime.setAuth();
      const ch = c
        .channel(topic, { config: { private: true } })
        .on('broadcast', { event: 'post' }, (m) => heard.push({ topic, payload: m.payload as Partial<Post> }));
      await subscribed(ch);
    };
    await listen(watcher.client, `discussion:${token}`);
    await expect(listen(watcher.client, `holders:${token}`)).rejects.toBeDefined(); // not a holder: refused at the join
    await listen(person.client, `holders:${token}`);
    const made = (await post(poster.client, token, 'live!')).data as Post;
    const inRoom = (await post(poster.client, token, 'room only', { p_room: 'holders' })).data as Post;
    await eventually(async () => (heard.length >= 2 ? true : undefined));
    expect(heard).toEqual(
      expect.arrayContaining([
        {
          topic: `discussion:${token}`,
          payload: expect.objectContaining({ id: made.id, body: 'live!', author: made.author }),
        },
        { topic: `holders:${token}`, payload: { id: inRoom.id, reply_to: null } },
      ]),
    );
    expect(heard.some((h) => h.payload.body === 'room only')).toBe(false);
    await watcher.client.removeAllChannels();
    await person.client.removeAllChannels();
  });

  it('limits posts per account and says so, writing nothing', async () => {
    const token = await freshToken(backend);
    const t = await trader(backend);
    for (let i = 0; i < 10; i++) expect((await post(t.client, token, `post ${i}`)).error).toBeNull();
    const before = await count('posts');
    expect((await post(t.client, token, 'one more')).error?.message).toBe(
      'You can post 10 times in 10 minutes. Wait a few minutes and post again.',
    );
    expect(await count('posts')).toBe(before);
  });

  it('reacts once per kind, takes a reaction back, and refuses one on your own post', async () => {
    const token = await freshToken(backend);
    const [a, b] = [await trader(backend), await trader(backend)];
    const p = (await post(a.client, token, 'react to me')).data as Post;
    expect((await b.client.rpc('react_to_post', { p_post: p.id, p_kind: 'like' })).data).toBe(true);
    expect((await b.client.rpc('react_to_post', { p_post: p.id, p_kind: 'insightful' })).data).toBe(true);
    let [seen] = await posts(b.client, token);
    expect(seen!.reactions).toEqual({
      like: 1,
      insightful: 1,
      disagree: 0,
      mine: expect.arrayContaining(['like', 'insightful']),
    });
    expect((await b.client.rpc('react_to_post', { p_post: p.id, p_kind: 'like' })).data).toBe(false);
    [seen] = await posts(b.client, token);
    expect(seen!.reactions).toMatchObject({ like: 0, insightful: 1, mine: ['insightful'] });
    expect((await a.client.rpc('react_to_post', { p_post: p.id, p_kind: 'like' })).error?.message).toMatch(
      /your own post/,
    );
    expect((await b.client.rpc('react_to_post', { p_post: p.id, p_kind: 'love' })).error?.message).toMatch(
      /like, insightful or disagree/,
    );
  });

  it("keeps the holders' room to holders of N, and takes it away the moment one sells below", async () => {
    const { token, person } = await personToken();
    const holder = await trader(backend, { token, tokens: 100, cash: 0 });
    const buyer = await trader(backend, { cash: 10_000 });
    const outsider = await trader(backend);
    expect(
      (await outsider.client.rpc('open_holders_room', { p_token: token, p_min_tokens: 50 })).error?.message,
    ).toMatch(/Only the token's own person/);
    expect((await person.client.rpc('open_holders_room', { p_token: token, p_min_tokens: 0 })).error?.message).toMatch(
      /from 1 to 10,000/,
    );
    expect((await person.client.rpc('open_holders_room', { p_token: token, p_min_tokens: 50 })).error).toBeNull();

    const room = { p_room: 'holders' };
    const inRoom = (await post(holder.client, token, 'holders only', room)).data as Post;
    expect(inRoom.room).toBe('holders');
    const refusal = /holders of at least 50 .* tokens/;
    expect((await post(outsider.client, token, 'let me in', room)).error?.message).toMatch(refusal);
    expect((await outsider.client.rpc('token_posts', { p_token: token, ...room })).error?.message).toMatch(refusal);
    expect((await outsider.client.from('posts').select('id').eq('id', inRoom.id)).data).toEqual([]);
    expect((await posts(person.client, token, room)).map((p) => p.id)).toEqual([inRoom.id]);

    // The holder sells 60 of 100 on the book: below 50, the room is closed to them at once.
    expect((await placeOrder(holder.client, token, 'sell', 'limit', 60, 10)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 60)).error).toBeNull();
    expect((await holder.client.rpc('token_posts', { p_token: token, ...room })).error?.message).toMatch(refusal);
    expect((await holder.client.from('posts').select('id').eq('id', inRoom.id)).data).toEqual([{ id: inRoom.id }]); // their own
    expect((await buyer.client.from('posts').select('id').eq('id', inRoom.id)).data).toEqual([{ id: inRoom.id }]); // now in

    // The person hides a reply in the room, never a public post.
    const reply = (await post(buyer.client, token, 'spam', { p_reply_to: inRoom.id })).data as Post;
    expect((await person.client.rpc('hide_room_reply', { p_post: reply.id })).error).toBeNull();
    expect((await posts(person.client, token, room))[0]!.replies).toEqual([]);
    const pub = (await post(buyer.client, token, 'public')).data as Post;
    const pubReply = (await post(holder.client, token, 'public reply', { p_reply_to: pub.id })).data as Post;
    expect((await person.client.rpc('hide_room_reply', { p_post: pubReply.id })).error?.message).toMatch(
      /report a post instead/,
    );
  });

  it("hides a post several trusted people report until an admin reviews it, audited, and a suspended author's", async () => {
    const token = await freshToken(backend);
    const [author, r1, r2, reader] = [
      await trader(backend),
      await trader(backend),
      await trader(backend),
      await trader(backend),
    ];
    const p = (await post(author.client, token, 'buy now or regret it forever')).data as Post;
    // Reports count by the reporter's trust: these two are trusted, together past the threshold.
    for (const r of [r1, r2])
      await backend.db.query(
        `insert into private.account_trust (user_id, trust, weight) values ($1, 0.01, 0.8)
         on conflict (user_id) do update set weight = 0.8`,
        [r.id],
      );
    const report = (c: SupabaseClient, reason = 'pump spam') =>
      c.rpc('report_post', { p_post: p.id, p_reason: reason });
    expect((await report(r1.client, 'x')).error?.message).toMatch(/3 to 500 characters/);
    expect((await report(r1.client)).data).toEqual({ reported: true, hidden: false });
    expect((await report(r1.client)).error?.message).toMatch(/reported this post already/);
    expect((await report(r2.client)).data).toEqual({ reported: true, hidden: true });
    // Gone for others, still there for its author.
    expect(await posts(reader.client, token)).toEqual([]);
    expect((await reader.client.from('posts').select('id').eq('id', p.id)).data).toEqual([]);
    expect((await posts(author.client, token))[0]).toMatchObject({ id: p.id, hidden: 'reported' });

    const admin = await signedIn(backend.url, ADMIN);
    expect((await reader.client.rpc('admin_post_reports')).error?.message).toMatch(/Admin privileges required/);
    const queue = (await admin.rpc('admin_post_reports')).data as (Post & { reports: number })[];
    expect(queue.find((q) => q.id === p.id)).toMatchObject({ reports: 2, hidden: 'reported' });
    expect((await admin.rpc('admin_restore_post', { p_post: p.id, p_reason: '' })).error?.message).toMatch(/audit log/);
    expect((await admin.rpc('admin_restore_post', { p_post: p.id, p_reason: 'Opinion, not spam' })).error).toBeNull();
    expect((await posts(reader.client, token)).map((x) => x.id)).toEqual([p.id]);
    expect(((await admin.rpc('admin_post_reports')).data as Post[]).some((q) => q.id === p.id)).toBe(false);
    expect((await admin.rpc('admin_hide_post', { p_post: p.id, p_reason: 'Repeated pumping' })).error).toBeNull();
    expect(await posts(reader.client, token)).toEqual([]);
    const audit = await backend.db.query<{ action: string; reason: string }>(
      `select action, reason from audit_log where target = $1 order by id`,
      [String(p.id)],
    );
    expect(audit).toEqual([
      { action: 'post.restore', reason: 'Opinion, not spam' },
      { action: 'post.hide', reason: 'Repeated pumping' },
    ]);

    // A suspended account's posts are hidden from everyone else.
    const other = (await post(r1.client, token, 'still here')).data as Post;
    await admin.rpc('admin_set_account_status', { p_user: r1.id, p_status: 'suspended', p_reason: 'Spam ring' });
    expect((await posts(reader.client, token)).some((x) => x.id === other.id)).toBe(false);
  });

  it("ranks 'top' by trust: a ring of fresh accounts cannot lift its posts over a trusted person's", async () => {
    const token = await freshToken(backend, 100_000, 10);
    const demo = await signedIn(backend.url, DEMO);
    // The ring: 20 fresh accounts with big positions, trading among themselves.
    const ring: Trader[] = [];
    for (let i = 0; i < 20; i++) ring.push(await trader(backend, { cash: 2000, token, tokens: 2000 }));
    for (let i = 0; i < ring.length; i++) {
      await placeOrder(ring[i]!.client, token, 'sell', 'limit', 10, 10);
      await placeOrder(ring[(i + 1) % ring.length]!.client, token, 'buy', 'market', 10);
    }
    await backend.db.query('select private.refresh_reputation()');
    const ringPosts: Post[] = [];
    for (const r of ring) ringPosts.push((await post(r.client, token, 'To the moon')).data as Post);
    const honest = (await post(demo, token, 'A fair price, in my view.')).data as Post;
    for (const r of ring)
      for (const p of ringPosts.slice(0, 5))
        if (p.author.id !== r.id) await r.client.rpc('react_to_post', { p_post: p.id, p_kind: 'like' });
    const ranked = await posts(demo, token, { p_order: 'top', p_limit: 30 });
    expect(ranked[0]!.id).toBe(honest.id);
    expect(ranked[0]!.author.trust).toBeGreaterThan(0);
    expect(ringPosts[0]!.author.trust).toBe(0);
    expect(ranked).toHaveLength(21);
  });
});

const username = async (t: Trader) =>
  ((await t.client.from('profiles').select('username').eq('id', t.id).single()).data as { username: string }).username;
