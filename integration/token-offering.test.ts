import type { SupabaseClient } from '@supabase/supabase-js';
import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { client } from './harness/clients';
import { book, cash, closeOffering, holding, invariantViolations, trader } from './harness/market';

interface Application {
  id: number;
  status: string;
  reason: string | null;
  socials: { platform: string; handle: string; url: string }[];
}

describe.each(ENGINES)("a person's own token on %s", (engine) => {
  const suite = adminSuite(engine);

  const apply = (c: SupabaseClient, overrides: Record<string, unknown> = {}) =>
    c.rpc('apply_for_token', {
      p_display_name: 'Nova Lee',
      p_category: 'Designer',
      p_bio: 'Type designer.',
      ...overrides,
    });

  it('applies; bad input and a second pending application are refused', async () => {
    const person = await trader(suite.backend);
    const bad: [Record<string, unknown>, string][] = [
      [{ p_display_name: ' ' }, 'The display name needs 2 to 80 characters.'],
      [{ p_category: 'Astrologer' }, 'Choose one of the categories.'],
      [{ p_bio: 'x'.repeat(501) }, 'The bio has at most 500 characters.'],
    ];
    for (const [overrides, message] of bad)
      expect((await apply(person.client, overrides)).error?.message).toBe(message);
    const { data, error } = await apply(person.client);
    expect(error).toBeNull();
    // Without a connected account it lists none (social.test.ts applies with two).
    expect(data).toMatchObject({ status: 'pending', socials: [] });
    expect((await apply(person.client)).error?.message).toBe('Your application is already waiting for review.');
  });

  it('only an suite.admin lists, approves or rejects applications', async () => {
    const person = await trader(suite.backend);
    const { data } = await apply(person.client);
    const id = (data as Application).id;
    for (const c of [person.client, client(suite.backend.url)]) {
      expect((await c.rpc('admin_list_applications', {})).error).not.toBeNull();
      expect((await c.rpc('admin_approve_application', { p_id: id })).error).not.toBeNull();
      expect((await c.rpc('admin_reject_application', { p_id: id, p_reason: 'no' })).error).not.toBeNull();
      expect((await c.from('audit_log').select('*')).data ?? []).toEqual([]);
    }
    const { data: pending } = await suite.admin.rpc('admin_list_applications', {});
    expect((pending as Application[]).map((a) => a.id)).toContain(id);
  });

  it("an application names the tokens listed under the same name, for the admin's review", async () => {
    const listed = (
      await suite.backend.db.query<{ username: string }>(`select username from tokens where name = 'Sarah Chen'`)
    )[0]!;
    const namesake = await trader(suite.backend);
    const ownName = await trader(suite.backend);
    const ids = {
      namesake: ((await apply(namesake.client, { p_display_name: 'sarah   CHEN' })).data as Application).id,
      ownName: ((await apply(ownName.client, { p_display_name: 'Nobody Else Has This Name' })).data as Application).id,
    };
    const { data } = await suite.admin.rpc('admin_list_applications', {});
    const byId = new Map((data as (Application & { namesakes: unknown })[]).map((a) => [a.id, a.namesakes]));
    expect(byId.get(ids.namesake)).toEqual([{ name: 'Sarah Chen', username: listed.username, verified: true }]);
    expect(byId.get(ids.ownName)).toEqual([]);
  });

  it('a rejection reaches the applicant with its reason, who may apply again', async () => {
    const person = await trader(suite.backend);
    const id = ((await apply(person.client)).data as Application).id;
    expect((await suite.admin.rpc('admin_reject_application', { p_id: id, p_reason: '' })).error?.message).toBe(
      'Give the applicant a reason of 3 to 500 characters.',
    );
    expect(
      (await suite.admin.rpc('admin_reject_application', { p_id: id, p_reason: 'Link your public accounts first.' }))
        .error,
    ).toBeNull();
    const { data: mine } = await person.client
      .from('token_applications')
      .select('status, reason')
      .eq('id', id)
      .single();
    expect(mine).toEqual({ status: 'rejected', reason: 'Link your public accounts first.' });
    expect((await suite.admin.rpc('admin_approve_application', { p_id: id })).error?.message).toBe(
      'This application was already rejected.',
    );
    expect((await apply(person.client)).error).toBeNull();
  });

  it('approval issues the token: founder allocation, an offering by auction, proceeds to the person, all audited', async () => {
    const person = await trader(suite.backend);
    const id = ((await apply(person.client)).data as Application).id;
    const [settings] = await suite.backend.db.query<{
      token_supply: string;
      token_founder_bps: number;
      token_issue_price: string;
    }>('select token_supply, token_founder_bps, token_issue_price from exchange_settings');
    const supply = Number(settings!.token_supply);
    const founder = Math.floor((supply * settings!.token_founder_bps) / 10000);
    const price = Number(settings!.token_issue_price);

    const { data: approved, error } = await suite.admin.rpc('admin_approve_application', { p_id: id });
    expect(error).toBeNull();
    const token = (approved as { token_id: string }).token_id;
    expect(approved).toMatchObject({
      total_supply: supply,
      issue_price: price,
      founder_allocation: founder,
      offering: supply - founder,
    });

    // On the market at once, searchable by anyone signed in; its offering is open for a day, its
    // book empty, and the person may not bid in it.
    const buyer = await trader(suite.backend, { cash: 5000 });
    const { data: listed } = await buyer.client
      .from('market_tokens')
      .select('name, price, total_supply, owner_id')
      .ilike('name', '%nova lee%');
    expect(listed).toContainEqual({ name: 'Nova Lee', price, total_supply: supply, owner_id: person.id });
    const { data: offering } = await buyer.client
      .from('offering_book')
      .select('supply, reserve_price, account_cap, opens_at, closes_at, closed_at')
      .eq('token_id', token)
      .single();
    expect(offering).toMatchObject({
      supply: supply - founder,
      reserve_price: price,
      account_cap: Math.floor((supply - founder) * 0.02),
      closed_at: null,
    });
    expect(Date.parse(offering!.closes_at) - Date.parse(offering!.opens_at)).toBe(24 * 3600_000);
    expect((approved as { offering_closes_at: string }).offering_closes_at).toBe(offering!.closes_at);
    expect(await book(suite.backend, token)).toEqual([]);
    expect(await holding(suite.backend, person.id, token)).toEqual({ amount: founder, reserved: 0 });
    expect(
      (await person.client.rpc('place_offering_bid', { p_token: token, p_price: price, p_amount: 10 })).error?.message,
    ).toBe("You cannot bid in your own token's offering.");

    // A buyer bids for 100 at the issue price; the window passes and the offering closes: the
    // person receives value - fee, and their 20% of both sides' fees.
    const before = await cash(suite.backend, person.id);
    expect(
      (await buyer.client.rpc('place_offering_bid', { p_token: token, p_price: price, p_amount: 100 })).error,
    ).toBeNull();
    await closeOffering(suite.backend, token);
    const value = Math.round(price * 100 * 100) / 100;
    const fee = Math.round(value * 0.02 * 100) / 100;
    const share = Math.round(2 * fee * 0.2 * 100) / 100;
    expect((await cash(suite.backend, person.id)).available).toBeCloseTo(before.available + value - fee + share, 2);
    expect(await holding(suite.backend, buyer.id, token)).toEqual({ amount: 100, reserved: 0 });
    // What the offering has not sold is available; the issuance account is no holder.
    const { data: figures, error: figuresError } = await buyer.client
      .from('market_tokens')
      .select('holders, available_supply')
      .eq('id', token)
      .single();
    expect(figuresError).toBeNull();
    expect(figures).toEqual({ holders: 2, available_supply: supply - founder - 100 });
    const { data: history } = await person.client.from('wallet_history').select('type, effect').order('position');
    expect(history).toEqual([
      { type: 'Sell', effect: value },
      { type: 'Trade Fee', effect: -fee },
      { type: 'Fee Share', effect: share },
    ]);

    // A second approval or application is refused; the decisions are in the audit log.
    expect((await apply(person.client)).error?.message).toBe('You already have a token.');
    const { data: log } = await suite.admin
      .from('audit_log')
      .select('action, target_user, after')
      .eq('target_user', person.id);
    expect(log).toEqual([
      expect.objectContaining({ action: 'application.approve', after: expect.objectContaining({ token_id: token }) }),
    ]);
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('the audit log is append-only, even for the database owner', async () => {
    await expect(suite.backend.db.query('update audit_log set reason = $1', ['tampered'])).rejects.toThrow(
      'The audit log is append-only.',
    );
    await expect(suite.backend.db.query('delete from audit_log')).rejects.toThrow('The audit log is append-only.');
  });
});
