import type { Statement } from '@repex/shared-ui/contracts';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

const DAY = 86_400_000;
const cents = (n: number) => Math.round(n * 100);
const sum = <T>(rows: T[], f: (r: T) => number) => rows.reduce((s, r) => s + cents(f(r)), 0);

/*
 * Statements (supabase/schemas/statements.sql): each total is checked against the database's own
 * figures (the wallet's history, the account's cash, its holdings and lots), not against itself.
 */
describe.each(ENGINES)('statements on %s', (engine) => {
  let backend: Backend;
  let me: Trader;
  let token: string;
  const day = (daysAgo: number) =>
    new Date(Math.floor(Date.now() / DAY) * DAY - daysAgo * DAY).toISOString().slice(0, 10);

  beforeAll(async () => {
    backend = await backendFor(engine)();
    token = await freshToken(backend, 10_000, 10);
    me = await trader(backend);
    // Last month's money: $2,000 in, $300 out, 40 days ago and 35 days ago.
    await backend.db.query('select private.record_deposit($1, 2000, now() - interval $$40 days$$)', [me.id]);
    await backend.db.query('select private.record_withdrawal($1, 300, now() - interval $$35 days$$)', [me.id]);
    // Today: trades through the engine, both sides, with fees, and a resting order.
    const other = await trader(backend, { cash: 5000, token, tokens: 500 });
    expect((await placeOrder(other.client, token, 'sell', 'limit', 100, 12)).error).toBeNull();
    expect((await placeOrder(me.client, token, 'buy', 'market', 60)).error).toBeNull();
    expect((await placeOrder(other.client, token, 'buy', 'limit', 25, 13)).error).toBeNull();
    expect((await placeOrder(me.client, token, 'sell', 'market', 25)).error).toBeNull();
    expect((await placeOrder(me.client, token, 'buy', 'limit', 10, 9)).error).toBeNull();
  });
  afterAll(async () => {
    expect(await invariantViolations(backend)).toEqual([]);
    await backend.close();
  });

  const statement = async (from: string, to: string) => {
    const { data, error } = await me.client.rpc('my_statement', { p_from: from, p_to: to });
    if (error) throw new Error(error.message);
    return data as Statement;
  };
  const historyBalance = async (before: string) => {
    const rows = (await me.client.from('wallet_history').select('effect, created_at')).data as {
      effect: number;
      created_at: string;
    }[];
    return rows.filter((r) => r.created_at < `${before}T00:00:00Z`).reduce((s, r) => s + cents(r.effect), 0);
  };

  it("reconciles a period ending today with the wallet's history, the cash, the holdings and the lots", async () => {
    const s = await statement(day(60), day(0));
    expect(cents(s.opening_cash)).toBe(0);
    // Opening plus every movement is the closing cash, and the totals are the movements' sums.
    expect(cents(s.opening_cash) + sum(s.movements, (m) => m.effect)).toBe(cents(s.closing_cash));
    expect(cents(s.closing_cash)).toBe(
      cents(s.opening_cash) +
        cents(s.deposits) -
        cents(s.withdrawals) -
        cents(s.bought) +
        cents(s.sold) -
        cents(s.fees),
    );
    expect([cents(s.deposits), cents(s.withdrawals)]).toEqual([200_000, 30_000]);
    // The trades list adds up to the same buys, sales and fees.
    expect(
      sum(
        s.trades.filter((t) => t.side === 'buy'),
        (t) => t.value,
      ),
    ).toBe(cents(s.bought));
    expect(
      sum(
        s.trades.filter((t) => t.side !== 'buy'),
        (t) => t.value,
      ),
    ).toBe(cents(s.sold));
    expect(sum(s.trades, (t) => t.fee)).toBe(cents(s.fees));
    expect(s.trades.map((t) => [t.side, t.tokens, t.price])).toEqual([
      ['buy', 60, 12],
      ['sell', 25, 13],
    ]);
    // The closing cash is the account's: available and held for resting orders (withdrawals left).
    const [cash] = await backend.db.query<{ cash: string }>(
      'select available + reserved as cash from cash_accounts where user_id = $1',
      [me.id],
    );
    expect(cents(s.closing_cash)).toBe(cents(Number(cash!.cash)));
    expect(cents(s.closing_cash)).toBe(await historyBalance(day(-1)));
    // Positions at the close are the holdings, at the last price.
    expect(s.positions).toEqual([{ token: expect.any(String), tokens: 35, price: 13, value: 455 }]);
    expect(s.positions_value).toBe(455);
    // Realized gains are the lots', and the lots are the database's FIFO lots.
    const { data: lots } = await me.client.rpc('my_realized_lots', { p_from: null, p_to: null });
    expect(s.lots.map((l) => l.gain)).toEqual((lots as { gain: number }[]).map((l) => l.gain));
    expect(cents(s.realized)).toBe(sum(s.lots, (l) => l.gain));
    // 25 of the 60 bought at $12 + 2% fee ($306), sold at $13 less $6.50 fee: +$12.50.
    expect(s.lots).toEqual([expect.objectContaining({ tokens: 25, cost: 306, proceeds: 325, fees: 6.5, gain: 12.5 })]);
  });

  it('keeps a past month to its own days: opening and closing cash, no later trades or positions', async () => {
    const s = await statement(day(45), day(30));
    expect([s.opening_cash, s.deposits, s.withdrawals, s.closing_cash]).toEqual([0, 2000, 300, 1700]);
    expect(cents(s.closing_cash)).toBe(await historyBalance(day(29)));
    expect([s.trades, s.positions, s.lots, s.realized]).toEqual([[], [], [], 0]);
    // The month after opens where it closed.
    expect((await statement(day(29), day(0))).opening_cash).toBe(1700);
  });

  it('opens a recent period from the cash now, an old one from the history before, alike', async () => {
    const periods: [string, string][] = [
      [day(60), day(0)],
      [day(45), day(30)],
      [day(38), day(36)],
      [day(29), day(0)],
      [day(0), day(0)],
    ];
    // A new account: every period opens from the movements before it.
    const fromHistory = await Promise.all(periods.map(([from, to]) => statement(from, to)));
    // The same account a year old: these periods are in the latter half of its life, so they open
    // from the cash now less the movements since.
    await backend.db.query(`update profiles set created_at = now() - interval '1 year' where id = $1`, [me.id]);
    try {
      const fromCash = await Promise.all(periods.map(([from, to]) => statement(from, to)));
      expect(fromCash).toEqual(fromHistory);
      for (const [i, [from]] of periods.entries())
        expect(cents(fromCash[i]!.opening_cash)).toBe(await historyBalance(from));
    } finally {
      await backend.db.query(`update profiles set created_at = now() where id = $1`, [me.id]);
    }
  });

  it('refuses a period it cannot make, in words', async () => {
    const refused = async (from: string, to: string) =>
      (await me.client.rpc('my_statement', { p_from: from, p_to: to })).error?.message;
    await expect(refused(day(1), day(3))).resolves.toBe('The statement starts after it ends.');
    await expect(refused(day(3), day(-1))).resolves.toBe('A statement cannot end after today.');
    await expect(refused('2010-01-01', day(0))).resolves.toBe('A statement covers at most five years.');
  });
});
