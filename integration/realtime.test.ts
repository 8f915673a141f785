import crypto from 'node:crypto';
import type { Backend } from '../server/index';
import type { SupabaseClient } from '@supabase/supabase-js';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ADMIN, client, signedIn, subscribed } from './harness/clients';
import { trader } from './harness/market';

jest.setTimeout(60_000);

describe.each(ENGINES)('realtime on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  /** Subscribes `c` to every change of `table` (no filter): row-level security alone decides what arrives. */
  async function watch(c: SupabaseClient, table: string, name: string) {
    const rows: Record<string, unknown>[] = [];
    await subscribed(
      c
        .channel(`${name}-${table}`)
        .on('postgres_changes', { event: '*', schema: 'public', table }, (p) =>
          rows.push(p.new as Record<string, unknown>),
        ),
    );
    return rows;
  }
  const deposit = (c: SupabaseClient, amount: number) =>
    c.rpc('create_deposit', {
      p_amount: amount,
      p_card: '4242 4242 4242 4242',
      p_idempotency_key: crypto.randomUUID(),
    });

  it("delivers a private row's change to its owner and an admin, and to no other subscriber", async () => {
    const [owner, other] = [await trader(backend), await trader(backend)];
    const admin = await signedIn(backend.url, ADMIN);
    const anon = client(backend.url);
    const seen = {
      owner: await watch(owner.client, 'wallet_transactions', 'owner'),
      other: await watch(other.client, 'wallet_transactions', 'other'),
      admin: await watch(admin, 'wallet_transactions', 'admin'),
      anon: await watch(anon, 'wallet_transactions', 'anon'),
    };
    expect((await deposit(owner.client, 25)).error).toBeNull();
    await eventually(async () => (seen.owner.length && seen.admin.length ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    const ownRows = (rows: Record<string, unknown>[]) => rows.filter((r) => r.user_id === owner.id);
    expect(ownRows(seen.owner).map((r) => r.status)).toContain('pending');
    expect(ownRows(seen.admin).length).toBeGreaterThanOrEqual(1);
    expect(ownRows(seen.other)).toEqual([]);
    expect(ownRows(seen.anon)).toEqual([]);
    for (const c of [owner.client, other.client, admin, anon]) await c.removeAllChannels();
  });

  it('delivers a change every signed-in user may read to each of them, and not to the anonymous', async () => {
    const watchers = [await trader(backend), await trader(backend), await trader(backend)];
    const anon = client(backend.url);
    const seen = await Promise.all(watchers.map((w, i) => watch(w.client, 'exchange_settings', `w${i}`)));
    const anonSeen = await watch(anon, 'exchange_settings', 'anon');
    const admin = await signedIn(backend.url, ADMIN);
    const { data: now } = await admin.from('exchange_settings').select('fee_bps').single();
    const fee = (now as { fee_bps: number }).fee_bps;
    expect((await admin.rpc('admin_update_settings', { p_changes: { fee_bps: fee + 1 } })).error).toBeNull();
    await eventually(async () => (seen.every((rows) => rows.length > 0) ? true : undefined));
    expect(seen.map((rows) => rows.at(-1)!.fee_bps)).toEqual([fee + 1, fee + 1, fee + 1]);
    await new Promise((r) => setTimeout(r, 300));
    expect(anonSeen).toEqual([]);
    await admin.rpc('admin_update_settings', { p_changes: { fee_bps: fee } });
    for (const c of [...watchers.map((w) => w.client), anon]) await c.removeAllChannels();
  });

  it('stops delivering to a subscriber whose session has ended (signed out everywhere), while others still receive', async () => {
    const [leaving, staying] = [await trader(backend), await trader(backend)];
    const admin = await signedIn(backend.url, ADMIN);
    const gone = await watch(leaving.client, 'exchange_settings', 'leaving');
    const kept = await watch(staying.client, 'exchange_settings', 'staying');
    // The session ends on the server (as a suspension or a global sign-out does); the socket stays open.
    await backend.db.query('delete from auth.sessions where user_id = $1', [leaving.id]);
    await new Promise((r) => setTimeout(r, 300));
    const { data: now } = await admin.from('exchange_settings').select('fee_bps').single();
    const fee = (now as { fee_bps: number }).fee_bps;
    await admin.rpc('admin_update_settings', { p_changes: { fee_bps: fee + 1 } });
    await eventually(async () => (kept.length ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(gone).toEqual([]);
    await admin.rpc('admin_update_settings', { p_changes: { fee_bps: fee } });
    await leaving.client.removeAllChannels();
    await staying.client.removeAllChannels();
  });

  it('delivers a change whose commit notifies, made through a REST call (a deposit), to its owner', async () => {
    const t = await trader(backend);
    const rows: { type: string; status: string; amount: number }[] = [];
    await subscribed(
      t.client
        .channel(`wallet-${t.id}`)
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'wallet_transactions', filter: `user_id=eq.${t.id}` },
          (p) => rows.push(p.new as (typeof rows)[number]),
        ),
    );
    const sentAt = Date.now();
    const { error } = await t.client.rpc('create_deposit', {
      p_amount: 25,
      p_card: '4242 4242 4242 4242',
      p_idempotency_key: crypto.randomUUID(),
    });
    expect(error).toBeNull();
    while (!rows.length && Date.now() - sentAt < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(rows).toEqual([expect.objectContaining({ type: 'deposit', status: 'pending', amount: 25 })]);
    await t.client.removeAllChannels();
  });
});
