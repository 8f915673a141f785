-- friendlier_minimums: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.check_amount(p_amount numeric, what text, lo numeric, hi numeric)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
begin
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then
    perform private.refuse(format('Enter a %s amount of at least %s.', what, private.money(lo)));
  end if;
  if p_amount <> round(p_amount, 2) then perform private.refuse(format('A %s amount has at most two decimals.', what)); end if;
  if p_amount < lo then perform private.refuse(format('The minimum %s is %s.', what, private.money(lo))); end if;
  if p_amount > hi then perform private.refuse(format('The maximum %s is %s.', what, private.money(hi))); end if;
end $function$;

CREATE OR REPLACE FUNCTION private.check_invest_plan(p_amount numeric, p_frequency text, p_day integer, p_token uuid)
 RETURNS smallint
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  s public.exchange_settings;
begin
  select * into s from public.exchange_settings;
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then
    perform private.refuse(format('Enter an amount of at least %s.', private.money(s.auto_invest_min)));
  end if;
  if p_amount <> round(p_amount, 2) then perform private.refuse('The amount has at most two decimals.'); end if;
  if p_amount < s.auto_invest_min or p_amount > s.auto_invest_max then
    perform private.refuse(format('A plan buys between %s and %s each time.', private.money(s.auto_invest_min), private.money(s.auto_invest_max)));
  end if;
  if p_frequency is null or p_frequency not in ('daily', 'weekly', 'monthly') then
    perform private.refuse('The schedule must be daily, weekly or monthly.');
  end if;
  if p_frequency = 'daily' and p_day is not null then perform private.refuse('A daily plan takes no day.'); end if;
  if p_frequency = 'weekly' and (p_day is null or p_day not between 1 and 7) then
    perform private.refuse('A weekly plan needs a weekday, 1 (Monday) to 7 (Sunday).');
  end if;
  if p_frequency = 'monthly' and (p_day is null or p_day not between 1 and 31) then
    perform private.refuse('A monthly plan needs a date, 1 to 31 (a shorter month runs on its last day).');
  end if;
  if p_token is not null and not exists (select 1 from public.tokens where id = p_token) then
    perform private.refuse('There is no such token.');
  end if;
  return p_day::smallint;
end $function$;
