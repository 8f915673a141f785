import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { closeOffering, holding, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

/*
 * A founder's allocation vests (tokens.sql): none before the 3-month cliff, then linearly to 24
 * months. Unvested tokens are held but not for sale; the engine says so.
 */
describe.each(ENGINES)("a founder's vesting on %s", (engine) => {
  const suite = adminSuite(engine);
  let person: Trader;
  let token: string;
  const FOUNDER = 200_000; // 20% of 1,000,000

  beforeAll(async () => {
    person = await trader(suite.backend);
    const { data: id, error } = await person.client.rpc('apply_for_token', {
      p_display_name: 'Vesta Founder',
      p_category: 'Designer',
    });
    expect(error).toBeNull();
    const approved = await suite.admin.rpc('admin_approve_application', { p_id: (id as { id: number }).id });
    expect(approved.error).toBeNull();
    token = (approved.data as { token_id: string }).token_id;
    // Its offering closes without a bid (offerings.test.ts covers the auction): trading opens.
    await closeOffering(suite.backend, token);
  });

  /** As if the token had been approved `months` ago, then the scheduler's release. */
  const age = async (months: number) => {
    await suite.backend.db.query(
      `update vesting_grants set starts_at = now() - make_interval(months => $1) where token_id = $2`,
      [months, token],
    );
    await suite.backend.db.query('select private.release_vesting()');
  };
  const locked = async () =>
    Number(
      (
        await suite.backend.db.query<{ locked: string }>(
          'select locked from holdings where user_id = $1 and token_id = $2',
          [person.id, token],
        )
      )[0]!.locked,
    );

  it('holds the whole allocation locked at approval, shows the schedule, and refuses a sale in words', async () => {
    expect(await holding(suite.backend, person.id, token)).toEqual({ amount: FOUNDER, reserved: 0 });
    expect(await locked()).toBe(FOUNDER);
    const { data: schedule } = await person.client
      .from('token_vesting')
      .select('total, vested, starts_at, cliff_at, ends_at')
      .eq('token_id', token)
      .single();
    expect(schedule).toMatchObject({ total: FOUNDER, vested: 0 });
    const months = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / (30.44 * 86_400_000));
    expect([months(schedule!.starts_at, schedule!.cliff_at), months(schedule!.starts_at, schedule!.ends_at)]).toEqual([
      3, 24,
    ]);
    const { data: mine } = await person.client
      .from('holdings')
      .select('amount, available, locked')
      .eq('token_id', token)
      .single();
    expect(mine).toEqual({ amount: FOUNDER, available: 0, locked: FOUNDER });
    const refused = await placeOrder(person.client, token, 'sell', 'limit', 10, 12);
    expect(refused.error?.message).toBe(
      `You have 0 Vesta Founder tokens available to sell (${FOUNDER} more are still vesting); this order needs 10.`,
    );
  });

  it('releases nothing before the cliff, then linearly, and what vested can be sold', async () => {
    await age(2);
    expect(await locked()).toBe(FOUNDER);
    await age(12); // half of 24 months
    const halfLocked = await locked();
    expect(Math.abs(halfLocked - FOUNDER / 2)).toBeLessThan(FOUNDER * 0.01); // months differ in length by a day or so
    const buyer = await trader(suite.backend, { cash: 100_000 });
    expect((await placeOrder(buyer.client, token, 'buy', 'limit', 1000, 9)).error).toBeNull();
    expect((await placeOrder(person.client, token, 'sell', 'market', 1000)).error).toBeNull();
    expect(await holding(suite.backend, person.id, token)).toEqual({ amount: FOUNDER - 1000, reserved: 0 });
    const tooMuch = await placeOrder(person.client, token, 'sell', 'limit', FOUNDER - halfLocked, 20);
    expect(tooMuch.error?.message).toMatch(/available to sell \(\d+ more are still vesting\); this order needs/);
    await age(25);
    expect(await locked()).toBe(0);
  });

  it('refuses vesting settings that do not make sense', async () => {
    expect(
      (
        await suite.admin.rpc('admin_update_settings', {
          p_changes: { founder_cliff_months: 30, founder_vesting_months: 24 },
        })
      ).error?.message,
    ).toBe('Founder vesting is 0 to 120 months, with a cliff no longer than the vesting.');
  });

  it('keeps the ledger whole', async () => {
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });
});
