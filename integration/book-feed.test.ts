import fc from 'fast-check';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { keyClient, subscribed } from './harness/clients';
import { freshToken, makeKey, placeOrder, trader, type Trader } from './harness/market';

jest.setTimeout(300_000);

interface Level {
  price: number;
  amount: number;
}
interface Snapshot {
  seq: number;
  trade_seq: number;
  bids: Level[];
  asks: Level[];
}
interface Delta {
  seq: number;
  bids: Level[];
  asks: Level[];
}
interface TradeMessage {
  seq: number;
  trades: { seq: number; id: number; price: number; amount: number }[];
}

/** A snapshot with these deltas applied, in seq order: a level's amount replaced, 0 removes it. */
function apply(s: Snapshot, deltas: Delta[]): Pick<Snapshot, 'seq' | 'bids' | 'asks'> {
  const sides = {
    bids: new Map(s.bids.map((l) => [l.price, l.amount])),
    asks: new Map(s.asks.map((l) => [l.price, l.amount])),
  };
  let seq = s.seq;
  for (const d of [...deltas].filter((x) => x.seq > s.seq).sort((a, b) => a.seq - b.seq)) {
    if (d.seq !== seq + 1) throw new Error(`gap: ${seq} then ${d.seq}`);
    seq = d.seq;
    for (const side of ['bids', 'asks'] as const)
      for (const l of d[side]) {
        if (l.amount === 0) sides[side].delete(l.price);
        else sides[side].set(l.price, l.amount);
      }
  }
  const levels = (m: Map<number, number>, desc: boolean) =>
    [...m].map(([price, amount]) => ({ price, amount })).sort((a, b) => (desc ? b.price - a.price : a.price - b.price));
  return { seq, bids: levels(sides.bids, true), asks: levels(sides.asks, false) };
}

const step = fc.record({
  who: fc.nat(3),
  kind: fc.constantFrom('limit', 'limit', 'limit', 'market', 'cancel'),
  side: fc.constantFrom('buy' as const, 'sell' as const),
  amount: fc.integer({ min: 1, max: 8 }),
  price: fc.integer({ min: 18, max: 22 }),
});

/**
 * The feed a bot keeps a book from: a snapshot, then each change's levels, numbered one by one.
 * Under random orders sent at once by several traders, the deltas after any snapshot, applied to
 * it, give exactly the book's next snapshot, with no seq missing or repeated; the tape's messages
 * number every trade once.
 */
describe.each(ENGINES)('the book feed on %s', (engine) => {
  let backend: Backend;
  let traders: Trader[];
  let listener: SupabaseClient;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    traders = [];
    for (let i = 0; i < 4; i++) traders.push(await trader(backend, { cash: 100_000 }));
    listener = keyClient(backend.url, (await makeKey(traders[0]!, ['read'])).key);
    await listener.realtime.setAuth();
  });
  afterAll(async () => {
    await listener.removeAllChannels();
    await backend.close();
  });

  const snapshot = async (token: string) => {
    const { data, error } = await listener.rpc('book_snapshot', { p_token: token });
    if (error) throw new Error(error.message);
    return data as Snapshot;
  };

  it('snapshot plus deltas is the next snapshot, under random concurrent orders', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 4, maxLength: 12 }), { minLength: 4, maxLength: 4 }),
        async (plans) => {
          const token = await freshToken(backend, 10_000, 20);
          for (const t of traders) await backend.db.query('select private.issue_tokens($1, $2, 200)', [token, t.id]);
          const deltas: Delta[] = [];
          const tapes: TradeMessage[] = [];
          const book = listener
            .channel(`book:${token}`, { config: { private: true } })
            .on('broadcast', { event: '*' }, (m) => deltas.push(m.payload as Delta));
          const tape = listener
            .channel(`trades:${token}`, { config: { private: true } })
            .on('broadcast', { event: '*' }, (m) => tapes.push(m.payload as TradeMessage));
          await Promise.all([subscribed(book), subscribed(tape)]);
          const first = await snapshot(token);
          let middle: Snapshot | undefined;
          await Promise.all(
            plans.map(async (plan, i) => {
              const t = traders[i]!;
              for (const [n, s] of plan.entries()) {
                if (i === 0 && n === Math.floor(plan.length / 2)) middle = await snapshot(token);
                if (s.kind === 'cancel') {
                  const [o] = await backend.db.query<{ id: string }>(
                    `select id from orders where user_id = $1 and token_id = $2 and status = 'open' order by id limit 1`,
                    [t.id, token],
                  );
                  if (o) await t.client.rpc('cancel_order', { p_order: Number(o.id) });
                } else {
                  await placeOrder(
                    t.client,
                    token,
                    s.side,
                    s.kind as 'limit' | 'market',
                    s.amount,
                    s.kind === 'limit' ? s.price : null,
                  );
                }
              }
            }),
          );
          const last = await snapshot(token);
          await eventually(async () =>
            deltas.some((d) => d.seq === last.seq) || last.seq === first.seq ? true : undefined,
          );
          await eventually(async () =>
            tapes.some((m) => m.seq === last.trade_seq) || last.trade_seq === first.trade_seq ? true : undefined,
          );
          expect(new Set(deltas.map((d) => d.seq)).size).toBe(deltas.length);
          expect(apply(first, deltas)).toEqual({ seq: last.seq, bids: last.bids, asks: last.asks });
          expect(apply(middle!, deltas)).toEqual({ seq: last.seq, bids: last.bids, asks: last.asks });
          // Every trade numbered once, in order, and every trade of the book on the tape.
          const numbered = tapes.flatMap((m) => m.trades.map((x) => x.seq)).sort((a, b) => a - b);
          expect(numbered).toEqual(
            Array.from({ length: last.trade_seq - first.trade_seq }, (_, k) => first.trade_seq + k + 1),
          );
          const [{ n }] = (await backend.db.query<{ n: number }>(
            'select count(*)::int as n from trades where token_id = $1',
            [token],
          )) as [{ n: number }];
          expect(numbered.length).toBe(n);
          await listener.removeChannel(book);
          await listener.removeChannel(tape);
        },
      ),
      { numRuns: 3 },
    );
  });

  it('is for signed-in readers, and names no unknown token', async () => {
    const r = await listener.rpc('book_snapshot', { p_token: '00000000-0000-0000-0000-000000000000' });
    expect(r.error?.message).toBe('There is no such token.');
  });
});
