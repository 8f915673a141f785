import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, invariantViolations, placeOrder, trader, type Trader } from './harness/market';
import { pastTrades, tradesReadBy } from './harness/history';

/** Trades behind the account's newest movements. */
const HISTORY = 10_000;

type Move = { id: string; type: string; description: string; effect: number; balance: number };
const fields = ({ id, type, description, effect, balance }: Move) => ({ id, type, description, effect, balance });

/**
 * The wallet opens on the account's newest 500 cash movements, each with the balance after it
 * (recent_wallet_history): the same rows and balances as the whole history's end (wallet_history),
 * read from the newest, so that an account's years of trades are not read to show its last ones.
 */
describe.each(ENGINES)("the wallet's newest movements (%s)", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(async () => {
    expect(await invariantViolations(backend)).toEqual([]);
    await backend.close();
  });

  /** The newest `n` movements as wallet_history has them, newest first, of one kind or all. */
  const fromTheStart = async (t: Trader, n: number, kind?: string) => {
    let query = t.client.from('wallet_history').select('*').order('position', { ascending: false }).limit(n);
    if (kind) query = query.eq('type', kind);
    return ((await query).data as Move[]).map(fields);
  };
  const fromTheEnd = async (t: Trader, n: number, kind?: string) => {
    const { data, error } = await t.client.rpc('recent_wallet_history', { p_kind: kind ?? null, p_limit: n });
    expect(error).toBeNull();
    return (data as Move[]).map(fields);
  };

  it('are the end of the whole history, balances and all, of every kind or one', async () => {
    const token = await freshToken(backend, 10_000, 10);
    const seller = await trader(backend, { cash: 500, token, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    for (const price of [10, 11, 12]) {
      expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, price)).error).toBeNull();
      expect((await placeOrder(buyer.client, token, 'buy', 'market', 5)).error).toBeNull();
    }
    expect((await placeOrder(seller.client, token, 'buy', 'limit', 2, 11)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'sell', 'market', 2)).error).toBeNull();

    for (const who of [buyer, seller]) {
      for (const n of [1, 2, 3, 5, 500]) expect(await fromTheEnd(who, n)).toEqual(await fromTheStart(who, n));
      for (const kind of ['Buy', 'Sell', 'Trade Fee', 'Deposit'])
        expect(await fromTheEnd(who, 2, kind)).toEqual(await fromTheStart(who, 2, kind));
    }
    // The buyer's last balance is their cash now: $1,000 less 15 tokens bought and their fees, plus
    // 2 sold at $11 less its fee.
    const [last] = await fromTheEnd(buyer, 1);
    expect(last).toMatchObject({ type: 'Trade Fee', effect: -0.44 });
    const [row] = await backend.db.query<{ cash: string }>(
      'select available + reserved as cash from cash_accounts where user_id = $1',
      [buyer.id],
    );
    expect(last!.balance).toBe(Number(row!.cash));
  });

  it('read no more of the trades for another month of history behind the newest, of all kinds or one', async () => {
    const token = await freshToken(backend);
    const [a, b] = [await trader(backend, { cash: 100 }), await trader(backend)];
    const history = (ago: string) => pastTrades(backend, { token, buyer: a.id, seller: b.id, count: HISTORY, ago });
    const read = async () =>
      (
        await tradesReadBy(backend, a.client, async (tx) => {
          expect(await tx.query('select * from public.recent_wallet_history(null, 10)')).toHaveLength(10);
          // One kind's newest too: the buys are each other movement here (a buy, its fee).
          expect(await tx.query(`select * from public.recent_wallet_history('Buy', 10)`)).toHaveLength(10);
        })
      ).trades;
    await history('1 day');
    const month = await read();
    await history('40 days');
    const twoMonths = await read();
    await backend.db.query('delete from trades where token_id = $1', [token]);
    expect(twoMonths - month).toBeLessThan(HISTORY / 10);
  });
});
