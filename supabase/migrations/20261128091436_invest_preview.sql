-- invest_preview: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.walk_book(p_user uuid, p_token uuid, p_side text, p_worst numeric, p_want bigint, p_budget numeric, p_bps integer, OUT filled bigint, OUT spent numeric, OUT levels jsonb, OUT first_price numeric, OUT last_fill numeric, OUT stopped text)
 RETURNS record
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  remaining bigint := p_want;
  level_price numeric;
  level_amount bigint := 0;
  maker record;
  n bigint;
begin
  spent := 0;
  levels := '[]';
  stopped := 'book';
  for maker in
    select o.price, o.amount - o.filled as open_amount
      from public.orders o
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from p_user
       and (case when o.side = 'buy' then -o.price else o.price end) <= p_worst
     order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id
  loop
    n := least(remaining, maker.open_amount);
    if p_budget is not null then
      n := private.affordable(n, maker.price, spent, p_budget, p_bps);
      if n <= 0 then stopped := 'cash'; exit; end if;
    end if;
    if level_price is distinct from maker.price then
      if level_amount > 0 then levels := levels || jsonb_build_object('price', level_price, 'amount', level_amount); end if;
      level_price := maker.price;
      level_amount := 0;
    end if;
    level_amount := level_amount + n;
    first_price := coalesce(first_price, maker.price);
    last_fill := maker.price;
    spent := spent + private.trade_value(maker.price, n);
    remaining := remaining - n;
    if remaining = 0 then stopped := 'filled'; exit; end if;
    if n < maker.open_amount then stopped := 'cash'; exit; end if; -- the budget stopped it within this order
  end loop;
  if level_amount > 0 then levels := levels || jsonb_build_object('price', level_price, 'amount', level_amount); end if;
  -- The walk ended at the order's bound with the book going on beyond it.
  if stopped = 'book' and exists (
    select 1 from public.orders o
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from p_user
       and (case when o.side = 'buy' then -o.price else o.price end) > p_worst) then
    stopped := 'limit';
  end if;
  filled := p_want - remaining;
end $function$;

CREATE OR REPLACE FUNCTION public.preview_invest_plan(p_amount numeric, p_token uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
  bps integer := private.fee_bps();
  items jsonb := '[]';
  spent numeric := 0;
  target record;
  walk record;
  cost numeric;
  members integer := 1;
  need numeric;
begin
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 or p_amount <> round(p_amount, 2) then
    perform private.refuse('Enter the amount each run buys, in dollars and cents.');
  end if;
  for target in
    select t.id, t.name, t.total_supply, split.budget
      from (select p_token as token_id, p_amount as budget where p_token is not null
            union all select x.token_id, x.budget from private.index_split(uid, p_amount) x where p_token is null) split
      join public.tokens t on t.id = split.token_id
     order by t.name
  loop
    walk := private.walk_book(uid, target.id, 'buy', private.band_edge(private.last_price(target.id), 'buy'),
                              target.total_supply, target.budget, bps);
    if walk.filled > 0 then
      cost := walk.spent + private.fee(walk.spent, bps);
      spent := spent + cost;
      items := items || jsonb_build_object('token_id', target.id, 'name', target.name, 'tokens', walk.filled, 'cost', cost);
    end if;
  end loop;
  if p_token is null then
    select count(*), ceil(max(ceil(s.ask * (1 + bps / 10000.0) * 100) / 100 / b.weight))
      into members, need
      from public.index_basket b
      cross join lateral (select min(o.price) as ask from public.orders o
                           where o.token_id = b.token_id and o.side = 'sell' and o.status = 'open' and o.user_id <> uid) s
     where b.weight > 0;
  end if;
  return jsonb_build_object('items', items, 'spent', spent, 'left', p_amount - spent, 'members', members,
                            'bought', jsonb_array_length(items), 'basket_min', need);
end $function$;

CREATE OR REPLACE FUNCTION public.quote_order(p_token uuid, p_side text, p_type text DEFAULT 'market'::text, p_amount numeric DEFAULT NULL::numeric, p_price numeric DEFAULT NULL::numeric, p_time_in_force text DEFAULT 'gtc'::text, p_max_total numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings;
  tok public.tokens;
  ref numeric;
  edge numeric;
  worst numeric;
  cash numeric := 0;
  held bigint := 0;
  budget numeric;
  want bigint;
  remaining bigint;
  filled bigint;
  spent numeric := 0;
  levels jsonb;
  first_price numeric;
  last_fill numeric;
  stopped text;
  walk record;
  fee numeric;
  rests boolean;
  rest_value numeric := 0;
  rest_fee numeric := 0;
  blocked text;
  refusal text;
begin
  if p_side is null or p_side not in ('buy', 'sell') then perform private.refuse('The side must be buy or sell.'); end if;
  if p_type is null or p_type not in ('market', 'limit') then perform private.refuse('The order type must be market or limit.'); end if;
  if p_amount is not null and (p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount)) then
    perform private.refuse('The amount must be a whole number of tokens, at least 1.');
  end if;
  if p_type = 'limit' and (p_price is null or p_price = 'NaN' or p_price <= 0) then
    perform private.refuse('A limit order needs a price above $0.00.');
  end if;
  if p_max_total is not null and (p_side <> 'buy' or p_type <> 'market' or p_max_total = 'NaN' or p_max_total <= 0) then
    perform private.refuse('A spending limit is for market buys, above $0.00.');
  end if;
  if p_amount is null and p_max_total is null then perform private.refuse('Give an amount of tokens or a sum to spend.'); end if;

  select * into settings from public.exchange_settings;
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if tok.halt_reason is not null then
    blocked := format('Trading in %s is halted: %s.', tok.name, rtrim(tok.halt_reason, '.'));
  elsif settings.trading_halted then
    blocked := 'Trading is halted' || coalesce(': ' || nullif(rtrim(settings.halt_reason, '.'), ''), '') || '.';
  end if;
  if uid is not null then
    select coalesce(max(available), 0) into cash from public.cash_accounts where user_id = uid;
    select coalesce(max(available), 0) into held from public.holdings where user_id = uid and token_id = p_token;
  end if;

  -- What the engine's funds check would say of this order (the same function, its words).
  if uid is not null and p_amount is not null then
    begin
      perform private.check_order_funds(uid, p_token, tok.name, p_side, p_type, p_amount::bigint, p_price, settings.fee_bps);
    exception when sqlstate 'P0001' then
      refusal := sqlerrm;
    end;
  end if;

  ref := private.last_price(p_token);
  edge := private.band_edge(ref, p_side);
  -- The worst rank the order accepts, ranked as match_order ranks the other side.
  worst := case when p_type = 'market' and p_side = 'buy' then edge when p_type = 'market' then -edge
                when p_side = 'buy' then p_price else -p_price end;
  budget := case when p_side = 'buy' and p_type = 'market'
                 then case when uid is null then coalesce(p_max_total, 'Infinity') else least(cash, coalesce(p_max_total, cash)) end end;
  want := coalesce(p_amount, tok.total_supply)::bigint;

  walk := private.walk_book(uid, p_token, p_side, worst, want, budget, settings.fee_bps);
  remaining := want - walk.filled;
  spent := walk.spent;
  levels := walk.levels;
  first_price := walk.first_price;
  last_fill := walk.last_fill;
  stopped := walk.stopped;
  filled := want - remaining;
  if p_amount is null then want := filled; remaining := 0; end if; -- "spend $50" asks for what the sum covers

  fee := private.fee(spent, settings.fee_bps);
  rests := p_type = 'limit' and remaining > 0 and coalesce(p_time_in_force, 'gtc') in ('gtc', 'gtd');
  if rests then
    rest_value := private.trade_value(p_price, remaining);
    rest_fee := private.fee(spent + rest_value, settings.fee_bps) - fee; -- one fee on the order's whole value
  end if;

  return jsonb_build_object(
    'side', p_side,
    'type', p_type,
    'amount', want,
    'filled', filled,
    'value', spent,
    'fee', fee,
    'total', case when p_side = 'buy' then spent + fee else spent - fee end,
    'average_price', case when spent > 0 then round(spent / filled, 2) end,
    'best_price', first_price,
    'worst_price', last_fill,
    'levels', levels,
    'remaining', remaining,
    'stopped_by', stopped,
    'resting', case when rests then remaining else 0 end,
    'rest_value', rest_value,
    'rest_fee', rest_fee,
    'rest_cost', case when p_side = 'buy' then rest_value + rest_fee else 0 end,
    'last_price', ref,
    'band_bps', settings.market_band_bps,
    'band_edge', edge,
    'impact_bps', case when last_fill is not null and ref > 0 then round((last_fill - ref) / ref * 10000) end,
    'best_bid', (select max(o.price) from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open' and o.user_id is distinct from uid),
    'best_ask', (select min(o.price) from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open' and o.user_id is distinct from uid),
    'fee_bps', settings.fee_bps,
    'cash', cash,
    'held', held,
    'blocked', blocked,
    'refusal', refusal
  );
end $function$;

revoke all on routine private.walk_book(uuid,uuid,text,numeric,bigint,numeric,integer) from public;

revoke all on routine public.preview_invest_plan(numeric,uuid) from anon;
revoke all on routine public.preview_invest_plan(numeric,uuid) from public;
