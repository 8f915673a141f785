import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ANON_KEY, DEMO, signedIn } from './harness/clients';
import { createClient } from '@supabase/supabase-js';

describe.each(ENGINES)("PostgREST's schema reload and request headers on %s", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('says in the catalog what cash and holdings columns mean (available and reserved alike in both)', async () => {
    const rows = await backend.db.query<{ name: string; meaning: string | null }>(`
      select c.relname || '.' || a.attname as name, col_description(c.oid, a.attnum) as meaning
        from pg_attribute a join pg_class c on c.oid = a.attrelid
       where c.relnamespace = 'public'::regnamespace and c.relname in ('cash_accounts', 'holdings')
         and a.attname in ('available', 'reserved', 'amount', 'pending_withdrawal')
       order by 1`);
    expect(rows.map((r) => r.name)).toEqual([
      'cash_accounts.available',
      'cash_accounts.pending_withdrawal',
      'cash_accounts.reserved',
      'holdings.amount',
      'holdings.available',
      'holdings.reserved',
    ]);
    for (const row of rows) expect(row.meaning?.length).toBeGreaterThan(30);
    expect(
      rows
        .filter((r) => r.name.endsWith('.reserved'))
        .every((r) => /held back by the owner's resting/.test(r.meaning!)),
    ).toBe(true);
  });

  it('serves a table and a function created after start once NOTIFY pgrst says reload schema; functions read request.headers', async () => {
    const c = await signedIn(backend.url, DEMO);
    await backend.db.exec(`
      create table public.late_notes (id bigint generated always as identity primary key, body text not null);
      alter table public.late_notes enable row level security;
      create policy "notes are readable" on public.late_notes for select to authenticated using (true);
      grant select on public.late_notes to authenticated;
      insert into public.late_notes (body) values ('hello');
      create function public.echo_header(p_name text) returns text language sql stable as $$
        select current_setting('request.headers', true)::json ->> p_name $$;
      grant execute on function public.echo_header(text) to authenticated;`);
    // Not in the schema cache yet: PostgREST's answer for an unknown table.
    expect((await c.from('late_notes').select('body')).error?.code).toBe('PGRST205');

    await backend.db.exec(`notify pgrst, 'reload schema'`);
    const rows = await eventually(async () => {
      const { data } = await c.from('late_notes').select('body');
      return data ?? undefined;
    }, 5000);
    expect(rows).toEqual([{ body: 'hello' }]);

    const session = (await c.auth.getSession()).data.session!;
    const traced = createClient(backend.url, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: {
        headers: {
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
          Authorization: `Bearer ${session.access_token}`,
        },
      },
    });
    const { data, error } = await traced.rpc('echo_header', { p_name: 'traceparent' });
    expect(error).toBeNull();
    expect(data).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    // The credentials are not handed to SQL.
    expect((await traced.rpc('echo_header', { p_name: 'authorization' })).data).toBeNull();
    expect((await traced.rpc('echo_header', { p_name: 'apikey' })).data).toBeNull();
  });
});
