import crypto from 'node:crypto';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from '../harness/backends';
import { client, subscribed } from '../harness/clients';
import { freshToken, placeOrder, trader } from '../harness/market';

jest.setTimeout(60_000);

describe.each(ENGINES)('realtime on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it("delivers a token's market events to a signed-in subscriber, filtered by token, within a second", async () => {
    const token = await freshToken(backend);
    const other = await freshToken(backend);
    const watcher = await trader(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const events: { token_id: string; kind: string }[] = [];
    const channel = watcher.client
      .channel(`token-${token}`)
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'market_events', filter: `token_id=eq.${token}` },
        (p) => events.push(p.new as { token_id: string; kind: string }),
      );
    await subscribed(channel);

    const sentAt = Date.now();
    await placeOrder(seller.client, token, 'sell', 'limit', 5, 10);
    const otherSeller = await trader(backend, { token: other, tokens: 10 });
    await placeOrder(otherSeller.client, other, 'sell', 'limit', 5, 10);
    while (!events.length && Date.now() - sentAt < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual([expect.objectContaining({ token_id: token, kind: 'book' })]);
    console.log(`${engine}: market event delivered ${Date.now() - sentAt} ms after the order`);
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toHaveLength(1); // the other token's event was filtered out
    await watcher.client.removeAllChannels(); // disconnects at once (removeChannel waits 50 s)
  });

  it('delivers nothing to an anonymous subscriber: row-level security decides', async () => {
    const token = await freshToken(backend);
    const anon = client(backend.url);
    const events: unknown[] = [];
    const channel = anon
      .channel('anon-watch')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'market_events' }, (p) => events.push(p));
    await subscribed(channel);
    const seller = await trader(backend, { token, tokens: 10 });
    await placeOrder(seller.client, token, 'sell', 'limit', 5, 10);
    await new Promise((r) => setTimeout(r, 500));
    expect(events).toEqual([]);
    await anon.removeAllChannels();
  });

  it('stops delivering to a subscriber whose session has ended (signed out everywhere), while others still receive', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const [leaving, staying] = [await trader(backend), await trader(backend)];
    const got = { leaving: 0, staying: 0 };
    for (const [who, t] of [
      ['leaving', leaving],
      ['staying', staying],
    ] as const) {
      await subscribed(
        t.client
          .channel(`ended-${who}-${token}`)
          .on(
            'postgres_changes',
            { event: 'INSERT', schema: 'public', table: 'market_events', filter: `token_id=eq.${token}` },
            () => {
              got[who] += 1;
            },
          ),
      );
    }
    await placeOrder(seller.client, token, 'sell', 'limit', 1, 10);
    const deadline = Date.now() + 5000;
    while ((got.leaving < 1 || got.staying < 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual({ leaving: 1, staying: 1 });

    // The session ends on the server (as a suspension or a global sign-out does); the socket stays open.
    await backend.db.query('delete from auth.sessions where user_id = $1', [leaving.id]);
    await placeOrder(seller.client, token, 'sell', 'limit', 1, 11);
    while (got.staying < 2 && Date.now() < deadline + 5000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toEqual({ leaving: 1, staying: 2 });
    await leaving.client.removeAllChannels();
    await staying.client.removeAllChannels();
  });

  it('delivers a change whose commit notifies, made through a REST call (a deposit), to its owner', async () => {
    const t = await trader(backend);
    const rows: { type: string; status: string; amount: number }[] = [];
    await subscribed(
      t.client
        .channel(`wallet-${t.id}`)
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'wallet_transactions', filter: `user_id=eq.${t.id}` },
          (p) => rows.push(p.new as (typeof rows)[number]),
        ),
    );
    const sentAt = Date.now();
    const { error } = await t.client.rpc('create_deposit', {
      p_amount: 25,
      p_card: '4242 4242 4242 4242',
      p_idempotency_key: crypto.randomUUID(),
    });
    expect(error).toBeNull();
    while (!rows.length && Date.now() - sentAt < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(rows).toEqual([expect.objectContaining({ type: 'deposit', status: 'pending', amount: 25 })]);
    await t.client.removeAllChannels();
  });
});
