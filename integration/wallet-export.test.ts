import type { SupabaseClient } from '@supabase/supabase-js';
import { pageAfter, type WalletPlace } from '@repex/shared-ui/contracts';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, invariantViolations, placeOrder, trader } from './harness/market';
import { pastTrades, tradesReadBy } from './harness/history';

/** Trades of the history the export is read over, then as many again. */
const HISTORY = 3_000;

type Move = WalletPlace & { effect: number };
const fields = ({ id, type, effect, balance }: Move) => ({
  id,
  type,
  effect: Number(effect),
  balance: Number(balance),
});

/**
 * The wallet's CSV export reads the whole history a page at a time (wallet_history_after), each
 * page after the last row of the one before, carrying its balance: the same rows and balances as
 * wallet_history, oldest first, and each movement read about once, however long the history.
 */
describe.each(ENGINES)("the wallet's export (%s)", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(async () => {
    expect(await invariantViolations(backend)).toEqual([]);
    await backend.close();
  });

  const pages = async (client: SupabaseClient, limit: number) => {
    const all: Move[] = [];
    for (;;) {
      const { data, error } = await client.rpc('wallet_history_after', { ...pageAfter(all.at(-1)), p_limit: limit });
      expect(error).toBeNull();
      if (!(data as Move[]).length) return all.map(fields);
      expect((data as Move[]).length).toBeLessThanOrEqual(limit);
      all.push(...(data as Move[]));
    }
  };

  it('is the whole history in pages of any size, balances and all', async () => {
    const token = await freshToken(backend, 10_000, 10);
    const seller = await trader(backend, { cash: 500, token, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    // Three asks taken by one market buy: three trades and their fees, all at one time.
    for (const price of [10, 11, 12])
      expect((await placeOrder(seller.client, token, 'sell', 'limit', 2, price)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 6)).error).toBeNull();
    expect((await placeOrder(seller.client, token, 'buy', 'limit', 2, 11)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'sell', 'market', 2)).error).toBeNull();

    for (const who of [buyer, seller]) {
      const whole = ((await who.client.from('wallet_history').select('*').order('position')).data as Move[]).map(
        fields,
      );
      expect(whole.length).toBeGreaterThan(6);
      for (const limit of [1, 2, 3, 1000]) expect(await pages(who.client, limit)).toEqual(whole);
    }
  });

  it('refuses a page after a movement it cannot place', async () => {
    const who = await trader(backend, { cash: 10 });
    const { error } = await who.client.rpc('wallet_history_after', { p_after_at: new Date().toISOString() });
    expect(error?.message).toBe('A page after a movement names its date, type, seq and id.');
  });

  it('reads each trade about once: twice the history, twice the reading', async () => {
    const token = await freshToken(backend);
    const [a, b] = [await trader(backend, { cash: 100 }), await trader(backend)];
    const history = (ago: string) => pastTrades(backend, { token, buyer: a.id, seller: b.id, count: HISTORY, ago });
    /** Trade rows read by the whole export, and the movements it returned. */
    const read = async () => {
      const { answer: last, trades } = await tradesReadBy(backend, a.client, async (tx) => {
        let moves = 0;
        let last: Move | undefined;
        for (;;) {
          // The time as text: the driver's Date would drop its microseconds.
          const rows = await tx.query<Move>(
            `select p.*, p.created_at::text as created_at
               from public.wallet_history_after($1, $2, $3, $4, $5, 1000) p`,
            [last?.created_at ?? null, last?.type ?? null, last?.seq ?? null, last?.id ?? null, last?.balance ?? 0],
          );
          if (!rows.length) return { moves, balance: Number(last?.balance) };
          moves += rows.length;
          last = rows.at(-1);
        }
      });
      return { trades, ...last };
    };
    await history('1 day');
    const once = await read();
    await history('40 days');
    const twice = await read();
    await backend.db.query('delete from trades where token_id = $1', [token]);
    // Each bare trade is a buy and its fee, after the deposit; the balance runs over all of them.
    expect(once.moves).toBe(2 * HISTORY + 1);
    expect(twice.moves).toBe(4 * HISTORY + 1);
    expect(twice.balance).toBeCloseTo(100 - 2 * HISTORY * 10.2, 2);
    // In proportion to the history (at most twice, as a fixed part does not grow): pages that each
    // read from the first movement read about three times as much here, and more with more pages.
    expect(twice.trades / once.trades).toBeLessThan(2.4);
  });
});
