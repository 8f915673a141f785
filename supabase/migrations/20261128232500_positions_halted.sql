-- positions_halted: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists public.my_positions();

CREATE OR REPLACE FUNCTION public.my_positions()
 RETURNS TABLE(token_id uuid, name text, username text, category text, avatar_url text, verified boolean, tokens bigint, avg_price numeric, cost numeric, price numeric, value numeric, pnl numeric, pnl_percent numeric, halted boolean)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  select h.token_id, m.name, m.username, m.category, m.avatar_url, m.verified, h.amount,
         round(coalesce(b.cost, 0) / h.amount, 2), round(coalesce(b.cost, 0), 2), m.price,
         round(h.amount * m.price, 2), round(h.amount * m.price, 2) - round(coalesce(b.cost, 0), 2),
         case when coalesce(b.cost, 0) > 0 then round((h.amount * m.price - b.cost) / b.cost * 100, 2) else 0 end,
         m.halted
  from public.holdings h
  join public.market_tokens m on m.id = h.token_id
  left join private.cost_basis(auth.uid(), now()) b on b.token_id = h.token_id
  where h.user_id = auth.uid() and h.amount > 0 and m.owner_id is distinct from auth.uid()
  order by round(h.amount * m.price, 2) desc, m.name;
end $function$;

revoke all on routine public.my_positions() from anon;
revoke all on routine public.my_positions() from public;
