import type { Backend } from '../server/index';
import { keepPortfolioCloses } from '../server/schedule';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, trader, type Trader } from './harness/market';

const DAY = 86_400_000;

/*
 * Portfolio Analysis's kept days (supabase/schemas/analysis.sql): once the scheduler keeps each
 * person's closed days, every period reads the same history as it built before; a payment that
 * settles late, and a trade dated in the past, forget the days they change, and the history
 * follows them.
 */
describe.each(ENGINES)("Portfolio Analysis's kept days on %s", (engine) => {
  let backend: Backend;
  let me: Trader;
  let others: [Trader, Trader];
  let token: string;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const at = (daysAgo: number, hour: number) => new Date(today - daysAgo * DAY + hour * 3_600_000).toISOString();
  const date = (daysAgo: number) => new Date(today - daysAgo * DAY).toISOString().slice(0, 10);
  const trade = (buyer: string, seller: string, price: number, amount: number, when: string) =>
    backend.db.query(
      `insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
       values ($1, $2, $3, $4, $5, 'buy', 1, 1, $6, 200)`,
      [token, buyer, seller, price, amount, when],
    );
  type Day = { day: string; cash: number; positions: number; value: number; twr: number; mwr: number | null };
  const periods = [
    { p_period: '7d' },
    { p_period: '30d' },
    { p_period: '1y' },
    { p_period: 'all' },
    { p_period: 'custom', p_from: date(4), p_to: date(2) },
  ];
  const histories = async () =>
    Promise.all(
      periods.map(async (args) => {
        const { data, error } = await me.client.rpc('my_portfolio_history', args);
        expect(error).toBeNull();
        return data as Day[];
      }),
    );
  const kept = async () =>
    (
      await backend.db.query<{ first: string | null; last: string | null; days: number }>(
        `select min(day)::text as first, max(day)::text as last, count(*)::int as days
         from private.portfolio_closes where user_id = $1`,
        [me.id],
      )
    )[0]!;
  const closedUntil = async () =>
    (await backend.db.query<{ d: string }>('select private.portfolio_closed_until()::text as d'))[0]!.d;
  /** What the scheduler does each minute, until everyone is kept. */
  const keepAll = async () => {
    while ((await keepPortfolioCloses(backend.db, 100)) > 0);
  };

  beforeAll(async () => {
    backend = await backendFor(engine)();
    token = await freshToken(backend, 10_000, 10);
    me = await trader(backend);
    others = [await trader(backend), await trader(backend)];
    const [a, b] = others;
    await backend.db.query('select private.record_deposit($1, 1000, $2)', [me.id, at(5, 10)]);
    await trade(me.id, a.id, 50, 10, at(5, 12));
    await trade(a.id, b.id, 60, 1, at(4, 14));
    await backend.db.query('select private.record_deposit($1, 500, $2)', [me.id, at(3, 9)]);
    await trade(b.id, a.id, 55, 1, at(2, 15));
  });
  afterAll(() => backend.close());

  it('keeps each closed day from the day before the first movement, and reads the same history', async () => {
    const built = await histories();
    expect(await kept()).toEqual({ first: null, last: null, days: 0 });
    await keepAll();
    const until = await closedUntil();
    const k = await kept();
    // The day before the first movement (five days ago) to the last closed day: six days, or five
    // in the hour after midnight UTC, when yesterday is not yet kept.
    expect(k).toEqual({ first: date(6), last: until, days: until === date(1) ? 6 : 5 });
    expect(await histories()).toEqual(built);
    // The history reads them: a kept figure changed by hand shows (and is put back).
    const tamper = (by: number) =>
      backend.db.query('update private.portfolio_closes set cash = cash + $3 where user_id = $1 and day = $2', [
        me.id,
        date(4),
        by,
      ]);
    await tamper(1);
    const cashOn4 = (days: Day[]) => days.find((d) => d.day === date(4))!.cash;
    expect(cashOn4((await histories())[0]!)).toBe(cashOn4(built[0]!) + 1);
    await tamper(-1);
    // Keeping again keeps nothing more.
    expect(await keepPortfolioCloses(backend.db, 100)).toBe(0);
    expect(await kept()).toEqual(k);
  });

  it('forgets the days a payment asked for days ago changes when it settles, and builds them again', async () => {
    await keepAll();
    const before = (await histories())[0]!;
    const [{ reference }] = await backend.db.query<{ reference: string }>(
      `insert into wallet_transactions (user_id, type, amount, status, created_at)
       values ($1, 'deposit', 200, 'pending', $2) returning reference::text`,
      [me.id, at(3, 8)],
    );
    // Pending, it changes nothing the history shows (a deposit counts once completed).
    expect((await histories())[0]).toEqual(before);
    await backend.db.query('select public.settle_payment($1::uuid, true)', [reference]);
    expect((await kept()).last).toBe(date(4));
    const after = (await histories())[0]!;
    expect(after.map((d) => d.cash - before.find((b) => b.day === d.day)!.cash)).toEqual(
      after.map((d) => (d.day >= date(3) ? 200 : 0)),
    );
    await keepAll();
    expect((await kept()).last).toBe(await closedUntil());
    expect((await histories())[0]).toEqual(after);
  });

  it("forgets everyone's days from a trade dated in the past, whose price moves them", async () => {
    await keepAll();
    const [a, b] = others;
    const before = (await histories())[0]!;
    // Others trade at $70 three days ago, after that day's last trade: my ten tokens' close then moves from $60 to $70.
    await trade(a.id, b.id, 70, 1, at(3, 23));
    const counted = await backend.db.query<{ n: number }>(
      `select count(*)::int as n from private.portfolio_closes where day >= $1`,
      [date(3)],
    );
    expect(counted[0]!.n).toBe(0);
    const after = (await histories())[0]!;
    expect(after.find((d) => d.day === date(3))!.positions).toBe(700);
    expect(before.find((d) => d.day === date(3))!.positions).toBe(600);
    await keepAll();
    expect((await histories())[0]).toEqual(after);
  });
});
