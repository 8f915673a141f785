import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, placeOrder, trader, type Trader } from './harness/market';

const DAY = 86_400_000;

/*
 * Portfolio Analysis (supabase/schemas/analysis.sql) against a hand-computed example, written into
 * the ledger at past times: the value of each day, the time-weighted return with a deposit in the
 * middle, and each position's gain. Then, through the engine, today's value is the ledger's.
 */
describe.each(ENGINES)('Portfolio Analysis on %s', (engine) => {
  let backend: Backend;
  let me: Trader;
  let token: string;
  /** UTC midnight, `n` days before today's. */
  const today = Math.floor(Date.now() / DAY) * DAY;
  const at = (daysAgo: number, hour: number) => new Date(today - daysAgo * DAY + hour * 3_600_000).toISOString();
  const date = (daysAgo: number) => new Date(today - daysAgo * DAY).toISOString().slice(0, 10);

  beforeAll(async () => {
    backend = await backendFor(engine)();
    token = await freshToken(backend, 10_000, 10);
    me = await trader(backend);
    const [a, b] = [await trader(backend), await trader(backend)];
    const trade = (buyer: string, seller: string, price: number, amount: number, when: string, fee: number) =>
      backend.db.query(
        `insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
         values ($1, $2, $3, $4, $5, 'buy', $6, $6, $7, 200)`,
        [token, buyer, seller, price, amount, fee, when],
      );
    // Five days ago: $1,000 in, then 10 tokens bought at $50 with a $10 fee. Cash 490, value 990.
    await backend.db.query('select private.record_deposit($1, 1000, $2)', [me.id, at(5, 10)]);
    await trade(me.id, a.id, 50, 10, at(5, 12), 10);
    // Four days ago others trade at $60: value 490 + 600 = 1,090.
    await trade(a.id, b.id, 60, 1, at(4, 14), 1.2);
    // Three days ago $500 more comes in: 1,590, a flow, not a gain.
    await backend.db.query('select private.record_deposit($1, 500, $2)', [me.id, at(3, 9)]);
    // Two days ago others trade at $55: 990 + 550 = 1,540.
    await trade(b.id, a.id, 55, 1, at(2, 15), 1.1);
  });
  afterAll(() => backend.close());

  it('reconstructs each day and chains the time-weighted return across a deposit', async () => {
    const { data, error } = await me.client.rpc('my_portfolio_history', { p_period: '7d' });
    expect(error).toBeNull();
    const rows = data as {
      day: string;
      value: number;
      cash: number;
      positions: number;
      flow: number;
      gain: number;
      twr: number;
      mwr: number | null;
    }[];
    expect(rows.map((r) => [r.day, r.cash, r.positions, r.value, r.flow])).toEqual([
      [date(7), 0, 0, 0, 0],
      [date(6), 0, 0, 0, 0],
      [date(5), 490, 500, 990, 1000],
      [date(4), 490, 600, 1090, 0],
      [date(3), 990, 600, 1590, 500],
      [date(2), 990, 550, 1540, 0],
      [date(1), 990, 550, 1540, 0],
      [date(0), 990, 550, 1540, 0],
    ]);
    // 990/1,000 = 0.99; x 1,090/990 = 1.09; x 1,590/(1,090 + 500) = 1.09; x 1,540/1,590 = 1.0557233.
    expect(rows.map((r) => r.twr)).toEqual([0, 0, -1, 9, 9, 5.5723, 5.5723, 5.5723]);
    // The gain since the opening: value less the opening's and the money put in since ($1,000, then $1,500).
    expect(rows.map((r) => r.gain)).toEqual([0, 0, -10, 90, 90, 40, 40, 40]);
    // The money-weighted return opens on the last empty day (six days ago). On day k, t days after
    // it, each flow weighs by the days it was in: the $1,000 from its day's start, the $500 from
    // three days ago's. Two days ago: 40 / (1,000 + 500 x 3/5) = 3.0769%; today: 40 / (1,000 + 500 x 4/6) = 3%.
    expect(rows.map((r) => r.mwr)).toEqual([0, 0, -1, 9, 7.7143, 3.2, 3.0769, 3]);

    // All time opens the day before the first movement, and ends where 7 days does.
    const all = (await me.client.rpc('my_portfolio_history', { p_period: 'all' })).data as typeof rows;
    expect(all[0]).toMatchObject({ day: date(6), value: 0, twr: 0, mwr: 0 });
    expect(all.at(-1)).toMatchObject({ day: date(0), value: 1540, twr: 5.5723, mwr: 3 });
  });

  it('leaves the money-weighted return out once more was taken out than was at work', async () => {
    // $100 in five days ago buys 10 tokens at $10; four days ago they sell at $110; three days ago
    // the $1,100 goes out. The capital at work then, 100 - 1,100 x 1/3 (weighed by the days
    // each flow was in), is not positive: a return on it would mean nothing.
    const fresh = await freshToken(backend, 10_000, 10);
    const [t, a, b] = [await trader(backend), await trader(backend), await trader(backend)];
    const trade = (buyer: string, seller: string, price: number, when: string) =>
      backend.db.query(
        `insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
         values ($1, $2, $3, $4, 10, 'buy', 0, 0, $5, 200)`,
        [fresh, buyer, seller, price, when],
      );
    await backend.db.query('select private.record_deposit($1, 100, $2)', [t.id, at(5, 10)]);
    await trade(t.id, a.id, 10, at(5, 12));
    await trade(b.id, a.id, 110, at(4, 14));
    await trade(a.id, t.id, 110, at(4, 15));
    // The trades above are written into the ledger's past, not through the engine: the cash they made.
    await backend.db.query('update cash_accounts set available = 1100 where user_id = $1', [t.id]);
    await backend.db.query('select private.record_withdrawal($1, 1100, $2)', [t.id, at(3, 10)]);
    const { data, error } = await t.client.rpc('my_portfolio_history', { p_period: '7d' });
    expect(error).toBeNull();
    const rows = data as { value: number; gain: number; mwr: number | null }[];
    expect(rows.map((r) => [r.value, r.gain])).toEqual([
      [0, 0],
      [0, 0],
      [100, 0],
      [1100, 1000],
      [0, 1000],
      [0, 1000],
      [0, 1000],
      [0, 1000],
    ]);
    // Four days ago the $100 had been in for the two days: 1,000 / 100.
    expect(rows.map((r) => r.mwr)).toEqual([0, 0, 0, 1000, null, null, null, null]);
  });

  it("sets the RepX index's return beside it, from the same opening", async () => {
    // The index's closes over the week (its own computation is repx-index.test.ts's).
    for (const [daysAgo, level] of [
      [7, 1000],
      [6, 1000],
      [5, 1020],
      [4, 1050],
      [3, 1040],
      [2, 1100],
      [1, 1100],
    ] as const)
      await backend.db.query(
        `insert into index_levels (period, at, level) values ('day', $1, $2) on conflict (period, at) do update set level = excluded.level`,
        [new Date(today - (daysAgo - 1) * DAY).toISOString(), level],
      );
    const rows = (await me.client.rpc('my_portfolio_history', { p_period: '7d' })).data as {
      day: string;
      index_return: number | null;
    }[];
    expect(rows.slice(0, 7).map((r) => [r.day, r.index_return])).toEqual([
      [date(7), 0],
      [date(6), 0],
      [date(5), 2],
      [date(4), 5],
      [date(3), 4],
      [date(2), 10],
      [date(1), 10],
    ]);
  });

  it("gives each position's gain over the period, and refuses a period it does not know", async () => {
    const { data } = await me.client.rpc('my_position_returns', { p_period: '7d' });
    // Nothing held at the opening; $510 put in; worth $550 now.
    expect(data).toEqual([
      { token_id: token, name: expect.any(String), value_start: 0, value_end: 550, net_bought: 510, gain: 40 },
    ]);
    expect((await me.client.rpc('my_portfolio_history', { p_period: '2w' })).error?.message).toBe(
      'The period must be 7d, 30d, 90d, 1y, all, or custom with its dates.',
    );
  });

  it('takes a custom period of past days, opening at the close before its first, and refuses dates that make none', async () => {
    const custom = { p_period: 'custom', p_from: date(4), p_to: date(3) };
    const { data, error } = await me.client.rpc('my_portfolio_history', custom);
    expect(error).toBeNull();
    const rows = data as { day: string; value: number; flow: number; gain: number; twr: number; mwr: number }[];
    // Opening at five days ago's close ($990, its $1,000 deposit part of it); the $500 three days ago a flow.
    expect(rows.map((r) => [r.day, r.value, r.flow, r.gain])).toEqual([
      [date(5), 990, 1000, 0],
      [date(4), 1090, 0, 100],
      [date(3), 1590, 500, 100],
    ]);
    // 1,090/990 = 1.10101, then 1,590/(1,090 + 500) = 1. Money-weighted: 100/990, then 100/(990 + 500 x 1/2).
    expect(rows.map((r) => [r.twr, r.mwr])).toEqual([
      [0, 0],
      [10.101, 10.101],
      [10.101, 8.0645],
    ]);
    // The 10 tokens held from the opening ($50, the last trade before it) to the end ($60): $100, nothing put in.
    expect((await me.client.rpc('my_position_returns', custom)).data).toEqual([
      { token_id: token, name: expect.any(String), value_start: 500, value_end: 600, net_bought: 0, gain: 100 },
    ]);
    // A start long before the account opens where all time does.
    const long = await me.client.rpc('my_portfolio_history', {
      p_period: 'custom',
      p_from: '1900-01-01',
      p_to: date(0),
    });
    expect((long.data as typeof rows)[0]!.day).toBe(date(6));

    for (const [args, message] of [
      [{ p_period: 'custom' }, 'A custom period needs a first and a last day.'],
      [{ p_period: 'custom', p_from: date(3), p_to: date(4) }, 'The first day must be on or before the last day.'],
      [
        { p_period: 'custom', p_from: date(3), p_to: new Date(today + 2 * DAY).toISOString().slice(0, 10) },
        'The last day cannot be after today (UTC).',
      ],
      [{ p_period: '7d', p_from: date(3) }, 'Dates go with the custom period only.'],
    ] as const) {
      expect((await me.client.rpc('my_portfolio_history', args)).error?.message).toBe(message);
      expect((await me.client.rpc('my_position_returns', args)).error?.message).toBe(message);
    }
  });

  it("ends today at the ledger's own value: cash (a withdrawal asked for is gone) plus tokens at their last price", async () => {
    const t = await trader(backend, { cash: 2000 });
    const seller = await trader(backend, { token, tokens: 100 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 30, 56)).error).toBeNull();
    expect((await placeOrder(t.client, token, 'buy', 'market', 20)).error).toBeNull();
    expect((await placeOrder(t.client, token, 'sell', 'limit', 5, 70)).error).toBeNull(); // resting: its tokens still count
    const rows = (await t.client.rpc('my_portfolio_history', { p_period: '30d' })).data as { value: number }[];
    const [ledger] = await backend.db.query<{ value: string }>(
      `select c.available + c.reserved
              + (select coalesce(sum(h.amount * s.price), 0) from holdings h join private.token_stats s on s.token_id = h.token_id
                  where h.user_id = c.user_id) as value
         from cash_accounts c where c.user_id = $1`,
      [t.id],
    );
    expect(rows.at(-1)!.value).toBe(Number(ledger!.value));
  });
});
