import type { Position } from '@repex/shared-ui/contracts';
import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { client } from './harness/clients';
import { cash, freshToken, invariantViolations, placeOrder, trader } from './harness/market';

describe.each(ENGINES)('halting trading in one token on %s', (engine) => {
  const suite = adminSuite(engine);
  const halt = (token: string, halted: boolean, reason?: string) =>
    suite.admin.rpc('admin_set_token_halt', { p_token: token, p_halted: halted, p_reason: reason ?? null });

  it('only an admin halts, with a reason traders can read; a halt or a resume twice is refused', async () => {
    const token = await freshToken(suite.backend);
    const someone = await trader(suite.backend);
    const person = await trader(suite.backend);
    await suite.backend.db.query('update tokens set owner_id = $1 where id = $2', [person.id, token]);
    for (const c of [someone.client, client(suite.backend.url)])
      expect(
        (await c.rpc('admin_set_token_halt', { p_token: token, p_halted: true, p_reason: 'No.' })).error,
      ).not.toBeNull();
    expect((await halt(token, true)).error?.message).toBe('Give a reason of 3 to 200 characters: traders see it.');
    expect((await halt(token, true, 'x'.repeat(201))).error?.message).toBe(
      'Give a reason of 3 to 200 characters: traders see it.',
    );
    expect((await halt(token, true, 'Under\u202e review')).error?.message).toBe(
      'The reason cannot hold control characters or invisible formatting characters (such as a right-to-left override).',
    );
    expect((await halt(token, false)).error?.message).toMatch(/^Trading in \S+ is open already\.$/);
    const { data, error } = await halt(token, true, '  Under review for wash trading.  ');
    expect(error).toBeNull();
    expect(data).toEqual({ token_id: token, halted: true, halt_reason: 'Under review for wash trading.' });
    expect((await halt(token, true, 'Under review for wash trading.')).error?.message).toMatch(/is halted already\.$/);
    // Traders read the halt on the token itself.
    const { data: seen } = await someone.client
      .from('tokens')
      .select('halt_reason, halted_at')
      .eq('id', token)
      .single();
    expect(seen).toEqual({ halt_reason: 'Under review for wash trading.', halted_at: expect.any(String) });
    const listed = async () =>
      (await someone.client.from('market_tokens').select('halted').eq('id', token).single()).data;
    expect(await listed()).toEqual({ halted: true });
    expect((await halt(token, false)).error).toBeNull();
    expect(await listed()).toEqual({ halted: false });
    // Screens following the market hear of each as a halt, not as a change of its book or tape.
    const told = await suite.backend.db.query<{ kind: string; halted: boolean }>(
      `select payload->>'kind' as kind, (payload->>'halted')::boolean as halted from realtime.messages
        where topic = 'market' and payload->>'token_id' = $1 order by id`,
      [token],
    );
    expect(told).toEqual([
      { kind: 'halt', halted: true },
      { kind: 'halt', halted: false },
    ]);
    // The token's person is told of each, by mail.
    const mail = await suite.backend.db.query<{ subject: string; body: string }>(
      'select subject, body from private.account_mail where user_id = $1 order by id',
      [person.id],
    );
    expect(mail).toEqual([
      {
        subject: 'Trading in your RepX token is halted',
        body: expect.stringMatching(
          /^RepX halted trading in your token \S+ on .+ UTC: Under review for wash trading\.\n/,
        ),
      },
      {
        subject: 'Trading in your RepX token has resumed',
        body: expect.stringMatching(/^Trading in your token \S+ resumed on .+ UTC: orders are accepted again\.$/),
      },
    ]);
    const { data: log } = await suite.admin.rpc('admin_audit_log', { p_limit: 10 });
    expect(
      (log as { action: string; target: string; reason: string | null }[])
        .filter((l) => l.action.startsWith('token.'))
        .slice(0, 2)
        .map((l) => [l.action, l.reason]),
    ).toEqual([
      ['token.resume', null],
      ['token.halt', 'Under review for wash trading.'],
    ]);
  });

  it('a halted token refuses new orders and keeps its book, which may be cancelled; other tokens trade on', async () => {
    const token = await freshToken(suite.backend);
    const other = await freshToken(suite.backend);
    const seller = await trader(suite.backend, { token, tokens: 100 });
    const buyer = await trader(suite.backend, { cash: 5000 });
    await suite.backend.db.query('select private.issue_tokens($1, $2, 10)', [other, seller.id]);
    const resting = await placeOrder(seller.client, token, 'sell', 'limit', 50, 10);
    expect(resting.error).toBeNull();
    const restingId = (resting.data as { order_id: number }).order_id;
    const second = (await placeOrder(seller.client, token, 'sell', 'limit', 20, 11)).data as { order_id: number };

    expect((await halt(token, true, 'Pending news from the issuer.')).error).toBeNull();
    const before = await cash(suite.backend, buyer.id);
    const name = (await suite.backend.db.query<{ name: string }>('select name from tokens where id = $1', [token]))[0]!
      .name;
    const refused = `Trading in ${name} is halted: Pending news from the issuer. Cancelling open orders still works.`;
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 10)).error?.message).toBe(refused);
    expect((await placeOrder(buyer.client, token, 'buy', 'limit', 10, 10)).error?.message).toBe(refused);
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 1, 50)).error?.message).toBe(refused);
    expect(await cash(suite.backend, buyer.id)).toEqual(before);
    const { data: book } = await buyer.client.from('order_book').select('side, price, amount').eq('token_id', token);
    expect(book).toEqual(
      expect.arrayContaining([
        { side: 'sell', price: 10, amount: 50 },
        { side: 'sell', price: 11, amount: 20 },
      ]),
    );
    expect((await seller.client.rpc('cancel_order', { p_order: second.order_id })).error).toBeNull();
    // Another token trades on.
    expect((await placeOrder(seller.client, other, 'sell', 'limit', 10, 5)).error).toBeNull();
    expect((await placeOrder(buyer.client, other, 'buy', 'market', 10)).data).toMatchObject({ status: 'filled' });
    // The holder (who sold all of the other token) reads which positions are halted with the positions.
    const positions = async () =>
      Object.fromEntries(
        ((await seller.client.rpc('my_positions')).data as Position[]).map((p) => [p.token_id, p.halted]),
      );
    expect(await positions()).toEqual({ [token]: true });

    // Resumed: the next order matches the book as it stood.
    expect((await halt(token, false)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 10)).data).toMatchObject({
      status: 'filled',
      filled: 10,
      average_price: 10,
    });
    expect(await positions()).toEqual({ [token]: false });
    const [{ filled }] = (await suite.backend.db.query<{ filled: number }>('select filled from orders where id = $1', [
      restingId,
    ])) as [{ filled: number }];
    expect(Number(filled)).toBe(10);
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });
});
