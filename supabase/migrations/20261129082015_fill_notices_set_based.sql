-- fill_notices_set_based: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists private.fill_words(bigint);

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
    -- Its owner placed it long before: the notice tells them what it did (notifications.sql).
    if matched.spent_value > 0 then
      perform private.notify(p_user, 'fill', private.fill_title(o), private.fill_body(o, tok.name), '/trading/' || tok.id, false)
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

CREATE OR REPLACE FUNCTION private.fill_body(o public.orders, p_token_name text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select case
    when o.triggered_at is not null and o.stop_price is not null then
      format('The price reached %s: your stop to %s %s triggered%s: %s %s at an average %s%s',
        private.money(o.stop_price), o.side, private.tokens_of(o.amount, p_token_name),
        case when o.status = 'filled' then ' and filled' else '' end,
        to_char(o.filled, 'FM999,999,999,990'), case when o.side = 'buy' then 'bought' else 'sold' end,
        private.money(round(o.filled_value / nullif(o.filled, 0), 2)),
        case when o.status = 'filled' then '.'
             when o.status = 'open' then format(', %s on the book at %s.', to_char(o.amount - o.filled, 'FM999,999,999,990'), private.money(o.price))
             else '; the rest could not fill and was cancelled.' end)
    when o.filled = o.amount then
      format('Your limit order to %s %s at %s has filled.', o.side, private.tokens_of(o.amount, p_token_name), private.money(o.price))
    else
      format('Your limit order to %s %s at %s: %s %s so far, %s still on the book.', o.side, private.tokens_of(o.amount, p_token_name),
        private.money(o.price), to_char(o.filled, 'FM999,999,999,990'), case when o.side = 'buy' then 'bought' else 'sold' end,
        to_char(o.amount - o.filled, 'FM999,999,999,990'))
  end
$function$;

CREATE OR REPLACE FUNCTION private.fill_title(o public.orders)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select case when o.triggered_at is not null and o.stop_price is not null then 'Stop Triggered'
              when o.filled = o.amount then 'Order Filled' else 'Order Partly Filled' end
$function$;

CREATE OR REPLACE FUNCTION private.notice_channel(p_user uuid, p_kind text)
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$
  select case when (select k.always_on from public.notification_kinds k where k.kind = p_kind) then 'mail'
              else coalesce((select p.channel from public.notification_preferences p where p.user_id = p_user and p.kind = p_kind),
                            (select k.default_channel from public.notification_kinds k where k.kind = p_kind)) end
$function$;

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
  with makers as (
    select o.user_id, count(*) as n, min(o.id) as one
      from public.orders o
     where o.id in (select case when n.taker_side = 'buy' then n.sell_order_id else n.buy_order_id end from new_trades n)
       and o.user_id <> private.issuance_account()
     group by o.user_id
  ),
  told as (
    select m.user_id, 'fill' as kind,
           case when m.n > 1 then 'Orders Filled' else private.fill_title(o) end as title,
           case when m.n > 1 then format('%s of your limit orders traded. Your dashboard has the details.', m.n)
                else private.fill_body(o, t.name) end as body,
           case when m.n > 1 then '/dashboard' else '/trading/' || o.token_id end as link,
           private.notice_channel(m.user_id, 'fill') as channel
      from makers m join public.orders o on o.id = m.one join public.tokens t on t.id = o.token_id
    union all
    select c.creator_id, 'fee_share', 'Fee share credited',
           format('%s trade%s in %s credited you %s.', c.trades, case when c.trades = 1 then '' else 's' end, t.name, private.money(c.share)),
           '/wallet', private.notice_channel(c.creator_id, 'fee_share')
      from (select n.creator_id, n.token_id, sum(n.creator_share) as share, count(*) as trades
              from new_trades n where n.creator_id is not null and n.creator_share > 0
             group by n.creator_id, n.token_id) c
      join public.tokens t on t.id = c.token_id
  ),
  written as (
    insert into public.notifications (user_id, kind, title, body, link)
    select w.user_id, w.kind, w.title, w.body, w.link from told w where w.channel <> 'off'
  )
  insert into private.account_mail (user_id, subject, body)
  select w.user_id, w.title, w.body from told w where w.channel = 'mail';
  get diagnostics mailed = row_count;
  if mailed > 0 then perform pg_notify('repx_mail', ''); end if;
  return null;
end $function$;

revoke all on routine private.fill_body(public.orders,text) from public;

revoke all on routine private.fill_title(public.orders) from public;
