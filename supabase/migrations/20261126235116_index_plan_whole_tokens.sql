-- index_plan_whole_tokens: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.index_split(p_user uuid, p_amount numeric)
 RETURNS TABLE(token_id uuid, budget numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  bps integer := private.fee_bps();
  ids uuid[];
  shares numeric[];
  costs numeric[];
  counts integer[];
  left_over numeric := p_amount;
  pick integer;
  gap numeric;
begin
  select array_agg(b.token_id order by b.token_id), array_agg(p_amount * b.weight order by b.token_id),
         array_agg(ceil((select min(o.price) from public.orders o
                          where o.token_id = b.token_id and o.side = 'sell' and o.status = 'open' and o.user_id <> p_user)
                        * (1 + bps / 10000.0) * 100) / 100 order by b.token_id)
    into ids, shares, costs
    from public.index_basket b;
  if ids is null then return; end if;
  counts := array_fill(0, array[cardinality(ids)]);
  for i in 1 .. cardinality(ids) loop
    if costs[i] is not null then
      counts[i] := floor(shares[i] / costs[i]);
      left_over := left_over - counts[i] * costs[i];
    end if;
  end loop;
  loop
    pick := null;
    for i in 1 .. cardinality(ids) loop
      if costs[i] is not null and costs[i] <= left_over and (pick is null or shares[i] - counts[i] * costs[i] > gap) then
        pick := i;
        gap := shares[i] - counts[i] * costs[i];
      end if;
    end loop;
    exit when pick is null;
    counts[pick] := counts[pick] + 1;
    left_over := left_over - costs[pick];
  end loop;
  for i in 1 .. cardinality(ids) loop
    token_id := ids[i];
    if costs[i] is null then
      budget := floor(shares[i] * 100) / 100;
      return next;
    elsif counts[i] > 0 then
      budget := counts[i] * costs[i];
      return next;
    end if;
  end loop;
end $function$;

CREATE OR REPLACE FUNCTION private.run_plan(p public.invest_plans, p_period date)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  run_id bigint;
  cash numeric;
  target record;
  result jsonb;
  bought integer := 0;
  tried integer := 0;
  first_reason text;
  total_spent numeric := 0;
  total_fees numeric := 0;
  run public.invest_runs;
  what text := coalesce((select t.name from public.tokens t where t.id = p.token_id), 'the RepX index');
begin
  update public.invest_plans
     set next_run_on = private.plan_date_on_or_after(p.frequency, p.run_day, p_period + 1)
   where id = p.id;
  insert into public.invest_runs (plan_id, user_id, period, amount, status)
  values (p.id, p.user_id, p_period, p.amount, 'running')
  on conflict (plan_id, period) do nothing
  returning id into run_id;
  if run_id is null then return false; end if;

  -- The person's cash, held for the run, so what is checked here still holds at each buy.
  select available into cash from public.cash_accounts where user_id = p.user_id for update;
  if coalesce(cash, 0) < p.amount then
    first_reason := format('Not enough cash: the plan buys %s and %s was available.', private.money(p.amount), private.money(coalesce(cash, 0)));
  elsif p.token_id is null and not exists (select 1 from public.index_basket) then
    first_reason := 'The RepX index has no members yet.';
  else
    -- The targets in token order, so two runs lock the books in the same order.
    for target in
      select p.token_id as token_id, p.amount as budget where p.token_id is not null
      union all
      select x.token_id, x.budget from private.index_split(p.user_id, p.amount) x where p.token_id is null
      order by 1
    loop
      tried := tried + 1;
      begin
        result := private.invest_buy(p.user_id, target.token_id, target.budget);
        insert into public.invest_run_buys (run_id, token_id, budget, order_id, tokens, value, fee, average_price)
        values (run_id, target.token_id, target.budget, (result->>'order_id')::bigint, (result->>'filled')::bigint,
                (result->>'value')::numeric, (result->>'fee')::numeric, (result->>'average_price')::numeric);
        bought := bought + 1;
        total_spent := total_spent + (result->>'total')::numeric;
        total_fees := total_fees + (result->>'fee')::numeric;
      exception when others then
        insert into public.invest_run_buys (run_id, token_id, budget, reason) values (run_id, target.token_id, target.budget, sqlerrm);
        first_reason := coalesce(first_reason, sqlerrm);
      end;
    end loop;
  end if;

  if tried = 0 and first_reason is null then
    first_reason := format('%s buys no whole token of the RepX index''s members at their best prices with the fee.',
      private.money(p.amount));
  end if;
  update public.invest_runs
     set status = case when bought = 0 then 'skipped' when bought < tried then 'partial' else 'bought' end,
         spent = total_spent, fees = total_fees, reason = case when bought < tried or tried = 0 then first_reason end
   where id = run_id
  returning * into run;
  insert into private.account_mail (user_id, subject, body)
  values (p.user_id,
          case when run.status = 'skipped' then format('Auto-Invest skipped: %s', what)
               else format('Auto-Invest bought %s', what) end,
          case when run.status = 'skipped' then format('Your %s plan for %s did not buy on %s: %s', private.money(p.amount), what, p_period, run.reason)
               else format('Your %s plan for %s spent %s on %s, fees included.', private.money(p.amount), what, private.money(run.spent), p_period)
                    || case when run.status = 'partial' then E'\n\nPart of it did not buy: ' || run.reason else '' end
          end || E'\n\nThe next run is on ' || (select next_run_on::text from public.invest_plans where id = p.id) || ' (UTC).');
  perform pg_notify('repx_mail', '');
  return true;
end $function$;

revoke all on routine private.index_split(uuid,numeric) from public;
