-- Price alerts: a user asks to be told when a token's price reaches a level (at or above, at or
-- below) or moves by a share within 24 hours. Whether an alert fires is decided here, in the
-- transaction of the trades that crossed it, once: the user is told on any screen they have open
-- (the shell follows their alerts as it follows their fills) and by the account mail.

create table public.price_alerts (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- above: a trade at or above price; below: at or below it; move: the 24-hour change reaches
  -- move_pct either way.
  kind text not null check (kind in ('above', 'below', 'move')),
  price numeric(12, 2) check (price > 0),
  move_pct numeric(5, 2) check (move_pct > 0 and move_pct <= 100),
  created_at timestamptz not null default now(),
  -- When it fired, and the price that fired it; a fired alert stays listed until removed or re-armed.
  fired_at timestamptz,
  fired_price numeric(12, 2),
  check ((kind = 'move') = (move_pct is not null)),
  check ((kind = 'move') = (price is null))
);
-- The armed alerts of a book, which each settlement checks.
create index price_alerts_armed_idx on public.price_alerts (token_id) where fired_at is null;
create index price_alerts_user_idx on public.price_alerts (user_id, created_at desc);
alter table public.price_alerts enable row level security;
create policy "own alerts" on public.price_alerts
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.price_alerts from anon;
revoke insert, update, delete, truncate on public.price_alerts from authenticated;

-- Sets an alert, or changes one (p_alert), which arms it again. At most 20 alerts a user: enough
-- to watch a portfolio, few enough that a screen lists them all.
create function public.set_price_alert(p_token uuid, p_kind text, p_value numeric, p_alert bigint default null)
returns public.price_alerts language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.trading_caller();
  most constant integer := 20;
  tok public.tokens;
  last numeric;
  saved public.price_alerts;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if p_kind is null or p_kind not in ('above', 'below', 'move') then
    perform private.refuse('An alert is for a price at or above a level, at or below one, or a move within 24 hours.');
  end if;
  if p_value is null or p_value = 'NaN' or p_value <= 0 then
    perform private.refuse(case when p_kind = 'move' then 'Give the move as a percentage above 0.' else 'Give the alert''s price, above $0.00.' end);
  end if;
  if p_value <> round(p_value, 2) then perform private.refuse('Use at most two decimals.'); end if;
  if p_kind = 'move' and p_value > 100 then perform private.refuse('A move is at most 100%.'); end if;
  last := private.last_price(p_token);
  if p_kind = 'above' and p_value <= last then
    perform private.refuse(format('%s is at %s already: set the alert above that.', tok.name, private.money(last)));
  elsif p_kind = 'below' and p_value >= last then
    perform private.refuse(format('%s is at %s already: set the alert below that.', tok.name, private.money(last)));
  end if;
  if p_alert is null then
    -- The person's row, so that two alerts set at once cannot both pass the count.
    perform 1 from public.profiles where id = uid for no key update;
    if (select count(*) from public.price_alerts where user_id = uid) >= most then
      perform private.refuse(format('You have %s price alerts, the most allowed. Remove one to set another.', most));
    end if;
    insert into public.price_alerts (user_id, token_id, kind, price, move_pct)
    values (uid, p_token, p_kind, case when p_kind <> 'move' then p_value end, case when p_kind = 'move' then p_value end)
    returning * into saved;
  else
    update public.price_alerts
       set kind = p_kind, price = case when p_kind <> 'move' then p_value end,
           move_pct = case when p_kind = 'move' then p_value end, fired_at = null, fired_price = null
     where id = p_alert and user_id = uid and token_id = p_token
    returning * into saved;
    if not found then perform private.refuse(format('You have no price alert #%s on %s.', p_alert, tok.name)); end if;
  end if;
  return saved;
end $$;
revoke execute on function public.set_price_alert(uuid, text, numeric, bigint) from public, anon;

-- Removes one of the caller's alerts.
create function public.delete_price_alert(p_alert bigint) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.trading_caller();
begin
  delete from public.price_alerts where id = p_alert and user_id = uid;
  if not found then perform private.refuse(format('You have no price alert #%s.', p_alert)); end if;
end $$;
revoke execute on function public.delete_price_alert(bigint) from public, anon;

-- Fires the armed alerts that a statement's trades crossed: a level by any of its trades, a move
-- by the 24-hour change as the statement left it. Named to follow trades_stats (a table's triggers
-- for one event fire in name order), so the change it reads includes these trades. Each fired
-- alert is mailed, and its owner's screens are told (realtime.sql) and read it from the table.
create function private.alerts_on_trades() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  fired integer;
  owners uuid[];
begin
  -- Most settlements meet no armed alert: one probe of their index each.
  if not exists (select 1 from public.price_alerts a where a.fired_at is null
                   and a.token_id in (select n.token_id from new_trades n)) then
    return null;
  end if;
  with moved as (
    select n.token_id, max(n.price) as high, min(n.price) as low,
           (array_agg(n.price order by n.created_at desc, n.id desc))[1] as last
    from new_trades n group by n.token_id
  ),
  hit as (
    update public.price_alerts a
       set fired_at = now(),
           fired_price = case a.kind when 'above' then m.high when 'below' then m.low else m.last end
      from moved m left join private.token_stats s on s.token_id = m.token_id
     where a.token_id = m.token_id and a.fired_at is null
       and case a.kind when 'above' then m.high >= a.price
                       when 'below' then m.low <= a.price
                       else abs(coalesce(s.change_24h, 0)) >= a.move_pct end
    returning a.*
  ),
  told as (
    select h.user_id, private.notify(h.user_id, 'alert', format('Price alert: %s at %s', t.name, private.money(h.fired_price)),
             private.alert_words(h, t.name) || E'\n\nThe alert stays on your list until you remove it or set it again.',
             '/trading/' || h.token_id) as notice
    from hit h join public.tokens t on t.id = h.token_id
  )
  select count(*), array_agg(distinct user_id) into fired, owners from told;
  if fired > 0 then perform private.tell_accounts(owners, 'alert'); end if;
  return null;
end $$;
revoke execute on function private.alerts_on_trades() from public;
create trigger trades_stats_alerts after insert on public.trades
  referencing new table as new_trades
  for each statement execute function private.alerts_on_trades();

-- What a fired alert says, in the mail and on screen.
create function private.alert_words(a public.price_alerts, token_name text) returns text
language sql immutable as $$
  select case a.kind
    when 'above' then format('%s traded at %s, at or above your alert at %s.', token_name, private.money(a.fired_price), private.money(a.price))
    when 'below' then format('%s traded at %s, at or below your alert at %s.', token_name, private.money(a.fired_price), private.money(a.price))
    else format('%s moved %s%% or more within 24 hours: it traded at %s.', token_name, trim_scale(a.move_pct)::text, private.money(a.fired_price))
  end
$$;
revoke execute on function private.alert_words(public.price_alerts, text) from public;
grant execute on function private.alert_words(public.price_alerts, text) to authenticated;

-- The caller's own alerts (an admin's too: the table lets admins read everyone's), with their
-- tokens' names and what each fired alert says.
create view public.my_price_alerts with (security_invoker = true) as
select a.id, a.token_id, t.name, t.username, a.kind, a.price, a.move_pct, a.created_at, a.fired_at, a.fired_price,
       case when a.fired_at is not null then private.alert_words(a, t.name) end as message
from public.price_alerts a
join public.tokens t on t.id = a.token_id
where a.user_id = auth.uid();
revoke all on public.my_price_alerts from anon;
revoke insert, update, delete, truncate on public.my_price_alerts from authenticated;
