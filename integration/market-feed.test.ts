import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { client, subscribed } from './harness/clients';
import { freshToken, placeOrder, trader } from './harness/market';

jest.setTimeout(60_000);

interface Tick {
  token_id: string;
  kind: string;
  price: number;
  volume_24h: number;
  volume_change: number;
  market_cap: number;
  market_cap_change: number;
  best_bid: number | null;
  best_ask: number | null;
  levels: { side: string; price: number; amount: number }[];
  trades: { id: number; price: number; amount: number; value: number; type: string; created_at: string }[];
}

/** A member of a private topic, as the app's screens join one; resolves with what it hears. */
async function listen(c: SupabaseClient, topic: string) {
  await c.realtime.setAuth();
  const heard: { event: string; payload: Record<string, unknown> }[] = [];
  const channel = c
    .channel(topic, { config: { private: true } })
    .on('broadcast', { event: '*' }, (m) =>
      heard.push({ event: m.event, payload: m.payload as Record<string, unknown> }),
    );
  await subscribed(channel);
  return { heard, channel };
}

/** Whether a join of a private topic is refused, and with what words. */
function refused(channel: RealtimeChannel): Promise<string> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') reject(new Error('joined'));
      else if (status === 'CHANNEL_ERROR') resolve(String(err?.message ?? err));
    });
  });
}

describe.each(ENGINES)('the market feed on %s (broadcast from the database)', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it("tells 'market' of each change with what changed: figures, touched levels, trades", async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const buyer = await trader(backend, { cash: 1000 });
    const watcher = await trader(backend);
    const { heard } = await listen(watcher.client, 'market');
    const mine = () => heard.map((m) => m.payload as unknown as Tick).filter((t) => t.token_id === token);

    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 10)).error).toBeNull();
    const [rested] = await eventually(async () => (mine().length >= 1 ? mine() : undefined));
    expect(rested).toMatchObject({
      kind: 'book',
      best_ask: 10,
      best_bid: null,
      levels: [{ side: 'sell', price: 10, amount: 5 }],
      trades: [],
      volume_change: 0,
    });
    const before = rested!;

    expect((await placeOrder(buyer.client, token, 'buy', 'market', 3)).error).toBeNull();
    const traded = (await eventually(async () => (mine().length >= 2 ? mine() : undefined)))[1]!;
    expect(traded).toMatchObject({
      kind: 'trade',
      price: 10,
      best_ask: 10,
      levels: [{ side: 'sell', price: 10, amount: 2 }],
      trades: [expect.objectContaining({ price: 10, amount: 3, value: 30, type: 'buy' })],
      volume_change: 30,
    });
    expect(traded.volume_24h).toBe(before.volume_24h + 30);
    expect(traded.market_cap_change).toBe(traded.market_cap - before.market_cap);
    // Exactly as the screens would read them.
    const { data: tape } = await watcher.client.from('recent_trades').select('id, price, amount').eq('token_id', token);
    expect(tape).toEqual([{ id: traded.trades[0]!.id, price: 10, amount: 3 }]);
    const { data: stats } = await watcher.client
      .from('market_tokens')
      .select('price, volume_24h, market_cap')
      .eq('id', token)
      .single();
    expect(stats).toEqual({ price: traded.price, volume_24h: traded.volume_24h, market_cap: traded.market_cap });

    expect((await seller.client.rpc('cancel_all_orders', { p_token: token })).error).toBeNull();
    const cancelled = (await eventually(async () => (mine().length >= 3 ? mine() : undefined)))[2]!;
    expect(cancelled).toMatchObject({ kind: 'book', best_ask: null, levels: [{ side: 'sell', price: 10, amount: 0 }] });
    await watcher.client.removeAllChannels();
  });

  it('tells each account, on its own topic, that its orders traded; nobody else may listen there', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const buyer = await trader(backend, { cash: 1000 });
    const stranger = await trader(backend);
    const sellerHears = await listen(seller.client, `account:${seller.id}`);
    const buyerHears = await listen(buyer.client, `account:${buyer.id}`);

    await placeOrder(seller.client, token, 'sell', 'limit', 5, 10);
    await placeOrder(buyer.client, token, 'buy', 'limit', 2, 10);
    await eventually(async () => (sellerHears.heard.length >= 2 && buyerHears.heard.length >= 1 ? true : undefined));
    // One word of the fill: the bell reads the seller's new notice on it too.
    expect(sellerHears.heard.map((m) => [m.event, m.payload])).toEqual([
      ['account', { what: 'orders', token_id: token }],
      ['account', { what: 'fills', token_id: token }],
    ]);
    expect(buyerHears.heard.map((m) => m.payload.what)).toEqual(['fills']);

    await stranger.client.realtime.setAuth();
    const words = await refused(stranger.client.channel(`account:${seller.id}`, { config: { private: true } }));
    expect(words).toMatch(/permissions to read from this Channel topic/);
    const anon = client(backend.url);
    expect(await refused(anon.channel('market', { config: { private: true } }))).toMatch(/permissions/);
    // The public topic of the same name is another room: the database's messages are not heard there.
    const outside: unknown[] = [];
    const publicMember = client(backend.url);
    await subscribed(publicMember.channel('market').on('broadcast', { event: '*' }, (m) => outside.push(m)));
    await placeOrder(seller.client, token, 'sell', 'limit', 1, 11);
    await new Promise((r) => setTimeout(r, 400));
    expect(outside).toEqual([]);
    for (const c of [seller.client, buyer.client, stranger.client, anon, publicMember]) await c.removeAllChannels();
  });

  it('ends the channels of a session that ended, while others keep hearing', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const [leaving, staying] = [await trader(backend), await trader(backend)];
    const a = await listen(leaving.client, 'market');
    const b = await listen(staying.client, 'market');
    await backend.db.query('delete from auth.sessions where user_id = $1', [leaving.id]);
    await new Promise((r) => setTimeout(r, 300)); // the ended session's notice reaches the server
    await placeOrder(seller.client, token, 'sell', 'limit', 1, 10);
    await eventually(async () => (b.heard.some((m) => m.payload.token_id === token) ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(a.heard.filter((m) => m.payload.token_id === token)).toEqual([]);
    await leaving.client.removeAllChannels();
    await staying.client.removeAllChannels();
  });
});
