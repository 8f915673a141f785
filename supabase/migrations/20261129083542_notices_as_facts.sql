-- notices_as_facts: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists private.fill_body(public.orders,text);

drop routine if exists private.fill_title(public.orders);

alter table public.notifications drop constraint if exists "notifications_kind_fkey";

alter table public.notifications alter column "body" drop default;
alter table public.notifications alter column "body" drop not null;

alter table public.notifications alter column "title" drop default;
alter table public.notifications alter column "title" drop not null;

alter table public.notifications add column "order_id" bigint;

alter table public.notifications add column "filled" bigint;

alter table public.notifications add column "order_count" integer;

alter table public.notifications add column "token_id" uuid;

alter table public.notifications add column "amount" numeric(14,2);

alter table public.notifications add column "trades" integer;

CREATE OR REPLACE FUNCTION private.execute_order(p_user uuid, tok public.tokens, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric, p_tif text, p_expires_at timestamp with time zone, p_post_only boolean, p_bps integer, p_budget numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  v_order bigint := p_order;
  budget numeric;
  matched record;
  spent numeric;
  rest_cost numeric := 0;
  final_status text;
  fee_sum numeric := 0;
  -- The order's time in the book: after the book's lock, so it follows every order before it.
  book_time timestamptz := clock_timestamp();
  -- What is left of a limit order rests, unless its time in force says it may not.
  rests boolean;
  -- The token's figures before the trades, so the market's message can say how its totals moved.
  before jsonb;
begin
  budget := private.check_order_funds(p_user, tok.id, tok.name, p_side, p_type, p_amount, p_price, p_bps);
  if p_budget is not null then budget := least(budget, p_budget); end if;
  if p_post_only or p_tif = 'fok' then
    perform private.check_maker_terms(p_user, tok, p_side, p_amount, p_price, p_post_only);
  end if;

  -- The order's id, drawn now: its trades name it, and its row is written once it is settled.
  if v_order is null then v_order := nextval(pg_get_serial_sequence('public.orders', 'id')); end if;

  matched := private.match_order(p_user, tok.id, v_order, p_side, p_type, p_amount, p_price, budget, p_bps);
  if p_type = 'market' and jsonb_array_length(matched.fills) = 0 then
    if exists (select 1 from public.orders where token_id = tok.id and status = 'open' and user_id <> p_user
                 and side = case when p_side = 'buy' then 'sell' else 'buy' end) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      case when p_side = 'buy' then 'sell' else 'buy' end, tok.name,
      case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;
  rests := p_type = 'limit' and matched.remaining > 0 and p_tif in ('gtc', 'gtd');

  -- Every account involved, cash then holdings, in ascending user id (no deadlocks): the caller and
  -- the makers it met; the person behind the token receives a share of the fees (and an offering's
  -- proceeds), so their cash is locked too.
  perform 1 from public.cash_accounts
   where user_id = any(p_user || matched.makers || case when tok.owner_id is not null then array[tok.owner_id] else '{}' end)
   order by user_id for update;
  perform 1 from public.holdings where token_id = tok.id and user_id = any(p_user || matched.makers)
   order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  if cardinality(matched.expire) > 0 then
    perform private.release_order(x) from unnest(matched.expire) x;
  end if;

  -- What was read before the locks still holds.
  spent := matched.spent_value + private.fee(matched.spent_value, p_bps);
  if p_side = 'buy' then
    rest_cost := case when rests
      then private.trade_value(p_price, matched.remaining) + private.fee(matched.spent_value + private.trade_value(p_price, matched.remaining), p_bps)
           - private.fee(matched.spent_value, p_bps) else 0 end;
    if (select available from public.cash_accounts where user_id = p_user) < spent + rest_cost then
      raise exception 'Insufficient funds: your available cash changed while the order was placed. Please try again.' using errcode = 'P0001';
    end if;
  else
    -- An assignment rather than `perform`: no executor of its own. A sell's budget is 0, and unused.
    budget := private.check_order_funds(p_user, tok.id, tok.name, p_side, p_type, p_amount, p_price, p_bps);
  end if;

  if jsonb_array_length(matched.fills) > 0 then
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tok.id);
    fee_sum := private.settle_fills(tok.id, p_side, matched.fills, book_time, p_bps);
  end if;

  -- What is left of a limit order rests on the book, its cost or tokens held back.
  if rests then
    if p_side = 'buy' then
      update public.cash_accounts set available = available - rest_cost, reserved = reserved + rest_cost where user_id = p_user;
    else
      update public.holdings set reserved = reserved + matched.remaining where user_id = p_user and token_id = tok.id;
    end if;
    final_status := 'open';
  else
    final_status := case when matched.remaining = 0 then 'filled' else 'cancelled' end;
  end if;
  if p_order is null then
    insert into public.orders (id, user_id, token_id, side, type, price, amount, filled, filled_value, fees_paid,
                               reserved, status, created_at, closed_at, time_in_force, expires_at, post_only)
    overriding system value
    values (v_order, p_user, tok.id, p_side, p_type, p_price, p_amount, p_amount - matched.remaining, matched.spent_value,
            fee_sum, rest_cost, final_status, book_time, case when final_status <> 'open' then clock_timestamp() end,
            p_tif, p_expires_at, p_post_only);
  else
    -- A triggered stop's row is there already: it enters the book now, at its trigger's time.
    update public.orders
       set filled = p_amount - matched.remaining, filled_value = matched.spent_value, fees_paid = fee_sum,
           reserved = rest_cost, status = final_status, created_at = book_time,
           closed_at = case when final_status <> 'open' then clock_timestamp() end
     where id = v_order;
    -- A stop its owner placed long before: the notice tells them what it did (notifications.sql).
    if matched.spent_value > 0 then
      perform private.notify(p_user, 'fill', 'Stop Triggered', private.stop_words(o, tok.name), '/trading/' || tok.id, false)
         from public.orders o where o.id = v_order;
    end if;
  end if;

  -- The market hears the levels this order rested at or expired (its trades' levels are read with
  -- them); the accounts whose orders traded, and the person whose fee share came, hear of it.
  perform private.tell_market(tok.id, case when matched.spent_value > 0 then 'trade' else 'book' end,
    case when rests then jsonb_build_array(jsonb_build_object('side', p_side, 'price', p_price)) else '[]' end
      || case when cardinality(matched.expire) > 0 then private.order_levels(matched.expire) else '[]' end,
    case when jsonb_array_length(matched.fills) > 0 then book_time end, before);
  if jsonb_array_length(matched.fills) > 0 then
    perform private.tell_accounts(p_user || matched.makers, 'fills', tok.id);
    if tok.owner_id is not null then perform private.tell_accounts(array[tok.owner_id], 'cash', tok.id); end if;
  else
    perform private.tell_accounts(array[p_user], 'orders', tok.id);
  end if;

  return jsonb_build_object(
    'order_id', v_order,
    'status', final_status,
    'side', p_side,
    'type', p_type,
    'time_in_force', p_tif,
    'amount', p_amount,
    'filled', p_amount - matched.remaining,
    'resting', case when final_status = 'open' then matched.remaining else 0 end,
    'average_price', case when p_amount > matched.remaining then round(matched.spent_value / (p_amount - matched.remaining), 2) end,
    'value', matched.spent_value,
    'fee', fee_sum,
    'total', case when p_side = 'buy' then matched.spent_value + fee_sum else matched.spent_value - fee_sum end
  );
end $function$;

CREATE OR REPLACE FUNCTION private.notice_words(n public.notifications, o public.orders, p_token_name text)
 RETURNS TABLE(title text, body text, link text)
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select
    coalesce(n.title, case
      when n.kind = 'fee_share' then 'Fee share credited'
      when n.order_count > 1 then 'Orders Filled'
      when n.filled = o.amount then 'Order Filled'
      else 'Order Partly Filled' end),
    coalesce(n.body, case
      when n.kind = 'fee_share' then
        format('%s trade%s in %s credited you %s.', n.trades, case when n.trades = 1 then '' else 's' end, p_token_name, private.money(n.amount))
      when n.order_count > 1 then format('%s of your limit orders traded. Your dashboard has the details.', n.order_count)
      when n.filled = o.amount then
        format('Your limit order to %s %s at %s has filled.', o.side, private.tokens_of(o.amount, p_token_name), private.money(o.price))
      else
        format('Your limit order to %s %s at %s: %s %s so far, %s still on the book.', o.side, private.tokens_of(o.amount, p_token_name),
          private.money(o.price), to_char(n.filled, 'FM999,999,999,990'), case when o.side = 'buy' then 'bought' else 'sold' end,
          to_char(o.amount - n.filled, 'FM999,999,999,990'))
      end),
    coalesce(n.link, case when n.kind = 'fee_share' then '/wallet' when n.order_count > 1 then '/dashboard' else '/trading/' || o.token_id end)
$function$;

CREATE OR REPLACE FUNCTION private.notify(p_user uuid, p_kind text, p_title text, p_body text, p_link text DEFAULT NULL::text, p_tell boolean DEFAULT true)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  channel text := private.notice_channel(p_user, p_kind);
  made bigint;
begin
  if channel is null then raise exception 'There is no kind of notice called "%".', p_kind; end if;
  if p_user is null or channel = 'off' or p_user = private.issuance_account() then return null; end if;
  insert into public.notifications (user_id, kind, title, body, link)
  values (p_user, p_kind, left(p_title, 200), left(p_body, 2000), p_link)
  returning id into made;
  if channel = 'mail' then
    insert into private.account_mail (user_id, subject, body) values (p_user, p_title, p_body);
    perform pg_notify('repx_mail', ''); -- only when mailed: a notifying commit serializes
  end if;
  if p_tell then perform private.tell_accounts(array[p_user], 'notice'); end if;
  return made;
end $function$;

CREATE OR REPLACE FUNCTION private.notify_fills()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  mailed integer;
begin
  if not exists (select 1 from public.notification_preferences p where p.kind in ('fill', 'fee_share') and p.channel <> 'app') then
    -- Nobody has turned these kinds off or asked for their mail: every maker and person is told.
    insert into public.notifications (user_id, kind, order_id, filled, order_count)
    select o.user_id, 'fill', min(o.id), (array_agg(o.filled order by o.id))[1], count(*)::integer
      from public.orders o
     where o.id in (select case when n.taker_side = 'buy' then n.sell_order_id else n.buy_order_id end from new_trades n)
       and o.user_id <> private.issuance_account()
     group by o.user_id;
    insert into public.notifications (user_id, kind, token_id, amount, trades)
    select n.creator_id, 'fee_share', n.token_id, sum(n.creator_share), count(*)::integer
      from new_trades n where n.creator_id is not null and n.creator_share > 0
     group by n.creator_id, n.token_id;
    return null;
  end if;
  with written as (
    insert into public.notifications (user_id, kind, order_id, filled, order_count, token_id, amount, trades)
    select m.user_id, 'fill', m.one, m.filled, m.n, null, null, null
      from (select o.user_id, count(*)::integer as n, min(o.id) as one, (array_agg(o.filled order by o.id))[1] as filled
              from public.orders o
             where o.id in (select case when n.taker_side = 'buy' then n.sell_order_id else n.buy_order_id end from new_trades n)
               and o.user_id <> private.issuance_account()
             group by o.user_id) m
     where private.notice_channel(m.user_id, 'fill') <> 'off'
    union all
    select n.creator_id, 'fee_share', null, null, null, n.token_id, sum(n.creator_share), count(*)::integer
      from new_trades n
     where n.creator_id is not null and n.creator_share > 0 and private.notice_channel(n.creator_id, 'fee_share') <> 'off'
     group by n.creator_id, n.token_id
    returning *
  )
  -- Those who asked for these kinds by mail: the words of the notices just written.
  insert into private.account_mail (user_id, subject, body)
  select n.user_id, w.title, w.body
    from written n
    left join public.orders o on o.id = n.order_id
    left join public.tokens t on t.id = coalesce(n.token_id, o.token_id)
    cross join lateral private.notice_words(n::public.notifications, o, t.name) w
   where private.notice_channel(n.user_id, n.kind) = 'mail';
  get diagnostics mailed = row_count;
  if mailed > 0 then perform pg_notify('repx_mail', ''); end if;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION private.stop_words(o public.orders, p_token_name text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select format('The price reached %s: your stop to %s %s triggered%s: %s %s at an average %s%s',
    private.money(o.stop_price), o.side, private.tokens_of(o.amount, p_token_name),
    case when o.status = 'filled' then ' and filled' else '' end,
    to_char(o.filled, 'FM999,999,999,990'), case when o.side = 'buy' then 'bought' else 'sold' end,
    private.money(round(o.filled_value / nullif(o.filled, 0), 2)),
    case when o.status = 'filled' then '.'
         when o.status = 'open' then format(', %s on the book at %s.', to_char(o.amount - o.filled, 'FM999,999,999,990'), private.money(o.price))
         else '; the rest could not fill and was cancelled.' end)
$function$;

create view public.my_notifications with (security_invoker = true) as
select n.id, n.kind, w.title, w.body, w.link, n.created_at, n.read_at
from public.notifications n
left join public.orders o on o.id = n.order_id
left join public.tokens t on t.id = coalesce(n.token_id, o.token_id)
cross join lateral private.notice_words(n, o, t.name) w
where n.user_id = (select auth.uid());

alter table public.notifications add constraint "notifications_check" CHECK ((((title IS NOT NULL) AND (body IS NOT NULL)) OR (kind = ANY (ARRAY['fill'::text, 'fee_share'::text]))));

revoke all on routine private.notice_words(public.notifications,public.orders,text) from public;
grant execute on routine private.notice_words(public.notifications,public.orders,text) to authenticated;

revoke all on routine private.stop_words(public.orders,text) from public;

grant execute on routine private.tokens_of(numeric,text) to authenticated;

revoke all on table public.my_notifications from anon;
revoke insert, update, delete, truncate on table public.my_notifications from authenticated;
