import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import { ENGINES, eventually } from './harness/backends';
import { ANON_KEY, JWT_SECRET, newUser } from './harness/clients';
import { crashableServer, spawnServer, stopServer } from './harness/process';
import { invariantViolations } from './harness/market';

jest.setTimeout(240_000);

/** Payments still pending or processing, counted through the running server as the service role. */
async function unsettled(url: string): Promise<number> {
  const key = await new SignJWT({ role: 'service_role' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  const res = await fetch(`${url}/rest/v1/wallet_transactions?select=id&status=in.(pending,processing)`, {
    method: 'HEAD',
    headers: { apikey: ANON_KEY, Authorization: `Bearer ${key}`, Prefer: 'count=exact' },
  });
  return Number(res.headers.get('content-range')?.split('/')[1]);
}

describe.each(ENGINES)('a crash of the server while deposits are being confirmed, on %s', (engine) => {
  it('credits every deposit exactly once or not at all, and the restart finishes the rest', async () => {
    // A slow rail, so confirmations are in flight when the process dies; a short lease, so the
    // restarted server hands what was left processing to the provider again.
    const { url, env, open, cleanup } = await crashableServer(engine, 'repex_paycrash', {
      PAYMENT_DELAY_MS: '400',
      PAYMENT_LEASE_MS: '1000',
    });
    let server = await spawnServer(env);
    const users = await Promise.all(Array.from({ length: 4 }, () => newUser(url, 'payer')));
    const deposits = users.flatMap((u) =>
      Array.from({ length: 6 }, (_, i) => ({
        user: u,
        amount: 100 + i,
        card: i % 5 === 4 ? '4000000000000002' : '4242424242424242',
      })),
    );
    const asked = Promise.all(
      deposits.map(async (d) => {
        const { error } = await d.user.client.rpc('create_deposit', {
          p_amount: d.amount,
          p_card: d.card,
          p_idempotency_key: crypto.randomUUID(),
        });
        return error ? null : d;
      }),
    );
    await new Promise((r) => setTimeout(r, 700));
    await stopServer(server, 'SIGKILL');
    const accepted = (await asked).filter((d) => d !== null);
    expect(accepted.length).toBeGreaterThan(0);

    server = await spawnServer(env);
    try {
      // Every deposit the server acknowledged is settled after the restart...
      await eventually(async () => ((await unsettled(url)) === 0 ? true : undefined), 30_000);
    } finally {
      await stopServer(server);
    }

    const backend = await open();
    try {
      // ...each credited once: a user's cash is exactly the sum of their completed deposits.
      const rows = await backend.db.query<{ user_id: string; available: string; completed: string; n: string }>(
        `select c.user_id, c.available,
                (select coalesce(sum(amount), 0) from wallet_transactions w where w.user_id = c.user_id and w.status = 'completed') as completed,
                (select count(*) from wallet_transactions w where w.user_id = c.user_id) as n
         from cash_accounts c where c.user_id = any($1::uuid[])`,
        [users.map((u) => u.id)],
      );
      for (const r of rows) expect(Number(r.available)).toBe(Number(r.completed));
      expect(rows.reduce((n, r) => n + Number(r.n), 0)).toBeGreaterThanOrEqual(accepted.length);
      const [{ failed }] = (await backend.db.query<{ failed: string }>(
        `select count(*) as failed from wallet_transactions where user_id = any($1::uuid[]) and status = 'failed' and message = 'Your card was declined.'`,
        [users.map((u) => u.id)],
      )) as [{ failed: string }];
      // Every declined deposit the server acknowledged failed; one whose answer the crash lost may
      // have been committed too, and then fails as well: never more than were sent.
      const declined = (list: (typeof deposits)[number][]) => list.filter((d) => d.card.endsWith('0002')).length;
      expect(Number(failed)).toBeGreaterThanOrEqual(declined(accepted));
      expect(Number(failed)).toBeLessThanOrEqual(declined(deposits));
      expect(await invariantViolations(backend)).toEqual([]);
    } finally {
      await backend.close();
      await cleanup();
    }
  });
});
