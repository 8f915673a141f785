-- The notification centre: every notice an account gets, in one table, and how its owner wants
-- each kind told (docs/notifications.md).
--
-- Whatever the database tells a person (a fill, a price alert, an Auto-Invest run, an offering's
-- result, a reply or a mention, a fee-share credit, a vesting release, a halt of their token, the
-- dead-man's switch, a security event) goes through private.notify: one row here, which the bell
-- lists and the screens' toasts show, and one mail when the person asked for mail. So nothing is
-- told one way only, and each kind has one home for its words. Security events are always told,
-- in the app and by mail.

-- The kinds, their names on screen, and how each is told until its owner says otherwise. The
-- browser reads this table rather than restating it.
create table public.notification_kinds (
  kind text primary key,
  label text not null,
  description text not null,
  -- 'app': in the bell; 'mail': in the bell and by mail; 'off': neither.
  default_channel text not null check (default_channel in ('app', 'mail', 'off')),
  always_on boolean not null default false,
  position integer not null unique
);
alter table public.notification_kinds enable row level security;
create policy "notification kinds are visible to signed-in users" on public.notification_kinds
  for select to authenticated using (true);
revoke all on public.notification_kinds from anon;
revoke insert, update, delete, truncate on public.notification_kinds from authenticated;
insert into public.notification_kinds (kind, label, description, default_channel, always_on, position) values
  ('fill', 'Fills', 'A resting order of yours traded, or a stop of yours triggered.', 'app', false, 1),
  ('alert', 'Price alerts', 'A price alert you set fired.', 'mail', false, 2),
  ('auto_invest', 'Auto-Invest', 'An Auto-Invest plan of yours ran.', 'mail', false, 3),
  ('offering', 'Offerings and bids', 'An offering you bid in closed.', 'mail', false, 4),
  ('reply', 'Replies and mentions', 'Someone replied to your post or mentioned you.', 'app', false, 5),
  ('fee_share', 'Fee share', 'Trades in your token credited you its fee share.', 'app', false, 6),
  ('vesting', 'Vesting', 'Founder tokens of yours vested.', 'app', false, 7),
  ('token', 'Your token', 'Trading in your token was halted or resumed.', 'mail', false, 8),
  ('orders', 'Order safety', 'Your dead-man''s switch cancelled your orders.', 'mail', false, 9),
  ('security', 'Security', 'A new sign-in browser, API key, bank account or withdrawal.', 'mail', true, 10),
  ('auction', 'Volatility auctions', 'A token you hold paused for a volatility auction, or resumed.', 'app', false, 11);

create table public.notifications (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  -- One of notification_kinds, as the functions that write it check. Not a foreign key: every
  -- settlement would share-lock the kind's one row, and concurrent settlements queue on it.
  kind text not null,
  -- The words, for every notice but a settlement's: those are written as facts (below) on the
  -- order's hot path, and worded when read (private.notice_words).
  title text check (char_length(title) between 1 and 200),
  body text check (char_length(body) <= 2000),
  -- The screen it is about, a path of the app ('/trading/<id>', '/wallet'), or null.
  link text check (link ~ '^/[A-Za-z0-9/_.?=&-]*$'),
  created_at timestamptz not null default now(),
  read_at timestamptz,
  -- A settlement's facts: the resting order and how much of it had filled then, or how many
  -- of its orders traded; the token and the fee share credited over how many trades.
  order_id bigint,
  filled bigint,
  order_count integer,
  token_id uuid,
  amount numeric(14, 2),
  trades integer,
  check (title is not null and body is not null or kind in ('fill', 'fee_share'))
);
create index notifications_user_idx on public.notifications (user_id, id desc);
create index notifications_unread_idx on public.notifications (user_id) where read_at is null;
alter table public.notifications enable row level security;
create policy "own notifications" on public.notifications
  for select to authenticated using (user_id = (select auth.uid()));
revoke all on public.notifications from anon;
revoke insert, update, delete, truncate on public.notifications from authenticated;

-- A notice's words: its own, or, for a settlement's facts, what they say. The one home of a
-- resting order's fill words and of the fee share's.
create function private.notice_words(n public.notifications, o public.orders, p_token_name text)
returns table (title text, body text, link text)
language sql immutable as $$
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
$$;
revoke execute on function private.notice_words(public.notifications, public.orders, text) from public;
grant execute on function private.notice_words(public.notifications, public.orders, text) to authenticated;

-- The caller's notices with their words: what the bell reads.
create view public.my_notifications with (security_invoker = true) as
select n.id, n.kind, w.title, w.body, w.link, n.created_at, n.read_at
from public.notifications n
left join public.orders o on o.id = n.order_id
left join public.tokens t on t.id = coalesce(n.token_id, o.token_id)
cross join lateral private.notice_words(n, o, t.name) w
where n.user_id = (select auth.uid());
revoke all on public.my_notifications from anon;
revoke insert, update, delete, truncate on public.my_notifications from authenticated;

-- A person's choice per kind; no row: the kind's default.
create table public.notification_preferences (
  user_id uuid not null references public.profiles (id) on delete cascade,
  kind text not null references public.notification_kinds (kind),
  channel text not null check (channel in ('app', 'mail', 'off')),
  primary key (user_id, kind)
);
alter table public.notification_preferences enable row level security;
create policy "own notification preferences" on public.notification_preferences
  for select to authenticated using (user_id = (select auth.uid()));
revoke all on public.notification_preferences from anon;
revoke insert, update, delete, truncate on public.notification_preferences from authenticated;

-- How a kind is told to this person now: an always-on kind by mail whatever is stored. One
-- expression (no FROM), so a query that calls it per row has it inlined.
create function private.notice_channel(p_user uuid, p_kind text) returns text
language sql stable as $$
  select case when (select k.always_on from public.notification_kinds k where k.kind = p_kind) then 'mail'
              else coalesce((select p.channel from public.notification_preferences p where p.user_id = p_user and p.kind = p_kind),
                            (select k.default_channel from public.notification_kinds k where k.kind = p_kind)) end
$$;
revoke execute on function private.notice_channel(uuid, text) from public;

-- Tells one person one thing, the one way notices are told: the row the bell and the toasts show,
-- the mail when they asked for mail, and a word on their account topic so open screens show it
-- now (p_tell false: the caller tells the account itself, as a settlement tells its makers of
-- their fills). Returns the notice's id, or null when the person turned the kind off.
create function private.notify(p_user uuid, p_kind text, p_title text, p_body text, p_link text default null,
                               p_tell boolean default true)
returns bigint
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.notify(uuid, text, text, text, text, boolean) from public;

-- The bell's figure: how many of the caller's notices are unread.
create function public.unread_notifications() returns integer
language sql stable security invoker set search_path = '' as $$
  select count(*)::integer from public.notifications where user_id = (select auth.uid()) and read_at is null
$$;
revoke execute on function public.unread_notifications() from public, anon;
grant execute on function public.unread_notifications() to authenticated;

-- Marks one of the caller's notices read, or all of them (p_id null). Returns how many changed.
create function public.mark_notifications_read(p_id bigint default null) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('mark notices read');
  n integer;
begin
  if p_id is not null and not exists (select 1 from public.notifications where id = p_id and user_id = uid) then
    perform private.refuse('That notice is not yours, or no longer exists.');
  end if;
  update public.notifications set read_at = now()
   where user_id = uid and read_at is null and (p_id is null or id = p_id);
  get diagnostics n = row_count;
  if n > 0 then perform private.tell_accounts(array[uid], 'notice'); end if;
  return n;
end $$;
revoke execute on function public.mark_notifications_read(bigint) from public, anon;

-- Sets how the caller is told one kind: 'app', 'mail' or 'off'. Security events stay on.
create function public.set_notification_preference(p_kind text, p_channel text) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change notification preferences');
  k public.notification_kinds;
begin
  select * into k from public.notification_kinds where kind = p_kind;
  if not found then perform private.refuse(format('There is no kind of notice called "%s".', left(p_kind, 40))); end if;
  if p_channel is null or p_channel not in ('app', 'mail', 'off') then
    perform private.refuse('Choose In the app, Also by mail or Off.');
  end if;
  if k.always_on then
    perform private.refuse(format('%s notices are always on, in the app and by mail: they protect your account.', k.label));
  end if;
  insert into public.notification_preferences (user_id, kind, channel) values (uid, p_kind, p_channel)
  on conflict (user_id, kind) do update set channel = excluded.channel;
end $$;
revoke execute on function public.set_notification_preference(text, text) from public, anon;

-- The fill notices of one settlement (a statement's new trades): each resting order someone else
-- traded against, told once to its owner (an owner with several such orders in one settlement
-- gets one notice for them all), and the fee share each token's person was credited. The taker
-- is not told here: the order panel told them what their order did, and a triggered stop is told
-- when it has settled (place_order). Every order pays for this, so it writes facts in one
-- statement and words nothing (my_notifications words them when read); only when someone has
-- turned these kinds off or asked for their mail does it look up whom (a rare, slower path).
-- The settlement tells the makers' accounts of their fills and the person's of the cash
-- (place_order); the bell reads on those words, so these notices add no message of their own.
create function private.notify_fills() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function private.notify_fills() from public;
create trigger trades_notify_fills after insert on public.trades
  referencing new table as new_trades
  for each statement execute function private.notify_fills();

-- What a triggered stop's notice says once it has settled (place_order), with what it did then.
-- A resting order's fill words are private.notice_words'.
create function private.stop_words(o public.orders, p_token_name text) returns text
language sql immutable as $$
  select format('The price reached %s: your stop to %s %s triggered%s: %s %s at an average %s%s',
    private.money(o.stop_price), o.side, private.tokens_of(o.amount, p_token_name),
    case when o.status = 'filled' then ' and filled' else '' end,
    to_char(o.filled, 'FM999,999,999,990'), case when o.side = 'buy' then 'bought' else 'sold' end,
    private.money(round(o.filled_value / nullif(o.filled, 0), 2)),
    case when o.status = 'filled' then '.'
         when o.status = 'open' then format(', %s on the book at %s.', to_char(o.amount - o.filled, 'FM999,999,999,990'), private.money(o.price))
         else '; the rest could not fill and was cancelled.' end)
$$;
revoke execute on function private.stop_words(public.orders, text) from public;
