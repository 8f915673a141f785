import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './helpers/backends';
import { client, subscribed } from './helpers/clients';
import { freshToken, trader } from './helpers/market';

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
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'market_events', filter: `token_id=eq.${token}` }, (p) =>
        events.push(p.new as { token_id: string; kind: string }),
      );
    await subscribed(channel);

    const sentAt = Date.now();
    await seller.client.rpc('place_order', { p_token: token, p_side: 'sell', p_type: 'limit', p_amount: 5, p_price: 10 });
    const otherSeller = await trader(backend, { token: other, tokens: 10 });
    await otherSeller.client.rpc('place_order', { p_token: other, p_side: 'sell', p_type: 'limit', p_amount: 5, p_price: 10 });
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
    await seller.client.rpc('place_order', { p_token: token, p_side: 'sell', p_type: 'limit', p_amount: 5, p_price: 10 });
    await new Promise((r) => setTimeout(r, 500));
    expect(events).toEqual([]);
    await anon.removeAllChannels();
  });
});
