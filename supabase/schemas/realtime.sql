-- Realtime: which changes reach open screens at once.
--
-- Tables that change now and then announce each change by NOTIFY (the local server's Realtime
-- relays it, after checking row-level security for each subscriber) and join Supabase Realtime's
-- publication on a hosted project. The market's busy signal, public.market_events (trading.sql),
-- is published but never notified: readers follow it by id.

create function private.notify_realtime() returns trigger
language plpgsql as $$
begin
  perform pg_notify('repx_realtime', json_build_object(
    'schema', tg_table_schema, 'table', tg_table_name, 'type', tg_op,
    'commit_timestamp', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'record', to_jsonb(new))::text);
  return null;
end $$;
revoke execute on function private.notify_realtime() from public;

-- Adds a table to Supabase Realtime's publication where there is one (a hosted project); the
-- local server relays the changes itself.
create function private.publish_realtime(p_table regclass) returns void
language plpgsql as $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    execute format('alter publication supabase_realtime add table %s', p_table);
  end if;
end $$;
revoke execute on function private.publish_realtime(regclass) from public;

select private.publish_realtime('public.market_events');

-- A change of settings reaches open screens at once (the order panel's fee).
create trigger exchange_settings_notify after update on public.exchange_settings
  for each row execute function private.notify_realtime();

-- The owner of a deposit or withdrawal sees its status change live.
create trigger wallet_transactions_notify after insert or update on public.wallet_transactions
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.wallet_transactions');

-- An applicant sees the decision on their token application live.
create trigger token_applications_notify after insert or update on public.token_applications
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.token_applications');

-- The owner of an Auto-Invest plan sees each run as the scheduler records it, on any screen: once,
-- with its outcome (a run's row is first written as running, inside its transaction).
create trigger invest_runs_notify after insert or update on public.invest_runs
  for each row when (new.status <> 'running') execute function private.notify_realtime();
select private.publish_realtime('public.invest_runs');

-- A person sees their social account's proof and each read arrive live (social.sql).
create trigger social_accounts_notify after insert or update of status, read_at on public.social_accounts
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.social_accounts');
