-- custom_period_words: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.period_days(p_user uuid, p_period text, p_from date, p_to date, OUT opening date, OUT closing date)
 RETURNS record
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  today date := (now() at time zone 'UTC')::date;
begin
  if p_period is distinct from 'custom' then
    if p_from is not null or p_to is not null then
      perform private.refuse('Dates go with the custom period only.');
    end if;
    opening := private.period_start(p_user, p_period);
    closing := today;
    return;
  end if;
  if p_from is null or p_to is null then perform private.refuse('A custom period needs a first and a last day.'); end if;
  if p_from > p_to then perform private.refuse('The first day must be on or before the last day.'); end if;
  if p_to > today then perform private.refuse('The last day cannot be after today (UTC).'); end if;
  closing := p_to;
  opening := greatest(p_from - 1, least(private.period_start(p_user, 'all'), p_to - 1));
end $function$;
