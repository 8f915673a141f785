-- fifo_lots: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.fifo_lots(p_user uuid, p_at timestamp with time zone)
 RETURNS TABLE(token_id uuid, bought_at timestamp with time zone, sold_at timestamp with time zone, tokens bigint, cost numeric, proceeds numeric, fees numeric, gain numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t record;
  queues jsonb := '{}';
  queue jsonb;
  lot jsonb;
  left_in_sale bigint;
  piece bigint;
begin
  for t in
    select tr.token_id, tr.created_at, tr.amount, tr.value, tr.buyer_fee, tr.seller_fee, tr.buyer_id = p_user as bought
    from public.trades tr
    where (tr.buyer_id = p_user or tr.seller_id = p_user) and tr.created_at <= p_at
      and tr.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p_user)
    order by tr.created_at, tr.id
  loop
    queue := coalesce(queues -> t.token_id::text, '[]');
    if t.bought then
      queue := queue || jsonb_build_array(jsonb_build_object(
        'at', t.created_at, 'left', t.amount, 'unit', (t.value + t.buyer_fee) / t.amount));
    else
      left_in_sale := t.amount;
      while left_in_sale > 0 and jsonb_array_length(queue) > 0 loop
        lot := queue -> 0;
        piece := least(left_in_sale, (lot ->> 'left')::bigint);
        token_id := t.token_id;
        bought_at := (lot ->> 'at')::timestamptz;
        sold_at := t.created_at;
        tokens := piece;
        cost := (lot ->> 'unit')::numeric * piece;
        proceeds := t.value * piece / t.amount;
        fees := t.seller_fee * piece / t.amount;
        gain := proceeds - fees - cost;
        return next;
        left_in_sale := left_in_sale - piece;
        if piece = (lot ->> 'left')::bigint then
          queue := queue - 0;
        else
          queue := jsonb_set(queue, '{0,left}', to_jsonb((lot ->> 'left')::bigint - piece));
        end if;
      end loop;
    end if;
    queues := queues || jsonb_build_object(t.token_id::text, queue);
  end loop;
end $function$;

CREATE OR REPLACE FUNCTION public.my_realized_lots(p_from timestamp with time zone DEFAULT NULL::timestamp with time zone, p_to timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(token_id uuid, name text, bought_at timestamp with time zone, sold_at timestamp with time zone, tokens bigint, cost numeric, proceeds numeric, fees numeric, gain numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  select l.token_id, k.name, l.bought_at, l.sold_at, l.tokens, round(l.cost, 2), round(l.proceeds, 2),
         round(l.fees, 2), round(l.proceeds, 2) - round(l.fees, 2) - round(l.cost, 2)
  from private.fifo_lots(auth.uid(), coalesce(p_to, now())) l
  join public.tokens k on k.id = l.token_id
  where p_from is null or l.sold_at >= p_from
  order by l.sold_at, l.bought_at;
end $function$;

revoke all on function private.fifo_lots(uuid,timestamp with time zone) from public;

revoke all on function public.my_realized_lots(timestamp with time zone,timestamp with time zone) from anon;
revoke all on function public.my_realized_lots(timestamp with time zone,timestamp with time zone) from public;
