-- A person's own token: they apply, an admin approves or rejects, and on approval the database
-- issues the token in one transaction. Every admin decision lands in an append-only audit log.
--
-- Issue on approval (defaults in exchange_settings): a total supply, a founder allocation to the
-- person, and an initial offering of the rest at the issue price, resting on the order book as a
-- sell order of the issuance account. Each fill of the offering pays the person (value - fee);
-- the issuance account only ever holds the unsold tokens.

alter table public.exchange_settings
  add column token_supply bigint not null default 1000000 check (token_supply between 1000 and 1000000000),
  add column token_founder_bps integer not null default 2000 check (token_founder_bps between 0 and 10000),
  add column token_issue_price numeric(12, 2) not null default 10 check (token_issue_price > 0 and token_issue_price <= 1000000);

alter table public.profiles drop constraint profiles_role_check;
alter table public.profiles add constraint profiles_role_check check (role in ('user', 'admin', 'system'));

-- The issuance account: an account nobody can sign in to (no password, banned), holding what is
-- left of each token offering.
create or replace function private.issuance_account() returns uuid
language sql immutable as $$ select '00000000-0000-4000-8000-00000000155e'::uuid $$;
-- A constant the market views use; they call it as the reader.
grant execute on function private.issuance_account() to authenticated;

insert into auth.users (id, email, raw_user_meta_data, banned_until)
values (private.issuance_account(), 'issuance@system.repx.dev',
        '{"username": "repx_offering", "full_name": "RepX Token Offering"}', 'infinity');
update public.profiles set role = 'system', bio = 'Sells the initial offering of newly issued tokens.' where id = private.issuance_account();

-- Who receives a sale's proceeds when it is not the seller: the person behind an offering.
alter table public.trades add column proceeds_to uuid references public.profiles (id);
create index trades_proceeds_idx on public.trades (proceeds_to, created_at desc) where proceeds_to is not null;
create policy "own trades" on public.trades
  for select to authenticated using (buyer_id = auth.uid() or seller_id = auth.uid() or proceeds_to = auth.uid() or private.is_admin());

-- Fees are charged on each order's cumulative value: a fill pays fee(value filled so far) minus the
-- fees the order already paid. So an order's fees come to the fee of its whole value, never a cent
-- more than a resting buy reserved, however it is filled (each part's fee rounded on its own could
-- add up to more). Trades without an order (the seed's history) pay the fee of their own value.
alter table public.orders
  add column filled_value numeric(14, 2) not null default 0 check (filled_value >= 0),
  add column fees_paid numeric(14, 2) not null default 0 check (fees_paid >= 0);

-- Every movement of the caller's cash, with its effect on the balance (available + reserved):
-- deposits when completed, withdrawals from the moment they are held (until failed or cancelled),
-- each trade's value and each fee, and an offering's proceeds for the token's person. The running
-- balance is the sum of the effects so far, so the last one (the highest `position`) equals the balance.
create view public.wallet_history with (security_invoker = true) as
with moves as (
  select 'wt-' || w.id as id, w.created_at, w.id::numeric as seq,
         case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end as type,
         coalesce(w.method, case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end) as description,
         case w.type when 'deposit' then w.amount else -w.amount end as amount,
         case when w.type = 'deposit' and w.status = 'completed' then w.amount
              when w.type = 'withdrawal' and w.status not in ('failed', 'cancelled') then -w.amount
              else 0 end as effect,
         initcap(w.status) as status, w.message, w.id as wallet_id, null::bigint as trade_id
  from public.wallet_transactions w
  where w.user_id = auth.uid()
  union all
  select 'tr-' || m.id, m.created_at, m.id + 0.1,
         case m.type when 'buy' then 'Buy' else 'Sell' end,
         format('%s %s at %s', m.amount, m.name, private.money(m.price)),
         case m.type when 'buy' then -m.value else m.value end,
         case m.type when 'buy' then -m.value else m.value end,
         'Completed', null, null, m.id
  from public.my_trades m
  union all
  select 'fee-' || m.id, m.created_at, m.id + 0.2, 'Trade Fee',
         format('On the %s of %s %s', m.type, m.amount, m.name), -m.fee, -m.fee, 'Completed', null, null, m.id
  from public.my_trades m
  where m.fee > 0
  union all
  select 'ipo-' || tr.id, tr.created_at, tr.id + 0.1, 'Sell',
         format('Offering: %s %s at %s', tr.amount, t.name, private.money(tr.price)),
         tr.value, tr.value, 'Completed', null, null, tr.id
  from public.trades tr join public.tokens t on t.id = tr.token_id
  where tr.proceeds_to = auth.uid()
  union all
  select 'ipofee-' || tr.id, tr.created_at, tr.id + 0.2, 'Trade Fee',
         format('On the offering sale of %s %s', tr.amount, t.name), -tr.seller_fee, -tr.seller_fee, 'Completed', null, null, tr.id
  from public.trades tr join public.tokens t on t.id = tr.token_id
  where tr.proceeds_to = auth.uid() and tr.seller_fee > 0
)
select id, type, description, amount, effect, status, message, wallet_id, trade_id, created_at,
       sum(effect) over running as balance,
       row_number() over running as position
from moves
window running as (order by created_at, type = 'Trade Fee', seq, id rows unbounded preceding);
revoke all on public.wallet_history from anon;
grant select on public.wallet_history to authenticated;

-- The audit log: append-only for everyone, admins included (no grant, and a trigger for the owner).
create table public.audit_log (
  id bigint generated always as identity primary key,
  actor_id uuid references public.profiles (id),
  action text not null,
  target_user uuid references public.profiles (id),
  target text,
  before jsonb,
  after jsonb,
  reason text,
  created_at timestamptz not null default now()
);
create index audit_log_time_idx on public.audit_log (created_at desc);
create index audit_log_target_idx on public.audit_log (target_user, created_at desc);
alter table public.audit_log enable row level security;
create policy "admins read the audit log" on public.audit_log for select to authenticated using (private.is_admin());
revoke all on public.audit_log from anon;
revoke insert, update, delete, truncate on public.audit_log from authenticated;

create or replace function private.forbid_audit_change() returns trigger
language plpgsql as $$ begin raise exception 'The audit log is append-only.' using errcode = '42501'; end $$;
create trigger audit_log_append_only before update or delete on public.audit_log
  for each row execute function private.forbid_audit_change();
create trigger audit_log_no_truncate before truncate on public.audit_log
  for each statement execute function private.forbid_audit_change();

create or replace function private.audit(p_action text, p_target_user uuid, p_target text, p_before jsonb, p_after jsonb, p_reason text default null)
returns void language sql security definer set search_path = '' as $$
  insert into public.audit_log (actor_id, action, target_user, target, before, after, reason)
  values (auth.uid(), p_action, p_target_user, p_target, p_before, p_after, p_reason)
$$;

create or replace function private.require_admin() returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_admin() then raise exception 'Admin privileges required.' using errcode = '42501'; end if;
  return auth.uid();
end $$;

-- The categories a person may list under (spec section 3): one list, read by the browser.
create table public.categories (name text primary key, position smallint not null unique);
insert into public.categories (name, position) values
  ('Tech Influencer', 1), ('Business Leader', 2), ('Fitness Coach', 3), ('Content Creator', 4), ('Crypto Expert', 5), ('Designer', 6);
alter table public.categories enable row level security;
create policy "categories are visible to signed-in users" on public.categories for select to authenticated using (true);
revoke all on public.categories from anon;
revoke insert, update, delete, truncate on public.categories from authenticated;

-- Applications for a token.
create table public.token_applications (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  display_name text not null check (char_length(display_name) between 2 and 80),
  category text not null references public.categories (name),
  bio text not null default '' check (char_length(bio) <= 500),
  -- [{"platform": "x", "handle": "alexr", "url": "https://x.com/alexr"}]
  socials jsonb not null default '[]' check (jsonb_typeof(socials) = 'array'),
  status text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  reason text,
  token_id uuid references public.tokens (id),
  decided_by uuid references public.profiles (id),
  decided_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index token_applications_one_pending_idx on public.token_applications (user_id) where status = 'pending';
create index token_applications_status_idx on public.token_applications (status, created_at);
alter table public.token_applications enable row level security;
create policy "own applications" on public.token_applications for select to authenticated using (user_id = auth.uid() or private.is_admin());
revoke all on public.token_applications from anon;
revoke insert, update, delete, truncate on public.token_applications from authenticated;

create trigger token_applications_notify after insert or update on public.token_applications
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.token_applications');

-- Social handles become links; no social API is called (the machines have no outside network).
create or replace function private.social_links(p_socials jsonb) returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  bases constant jsonb := '{"x": "https://x.com/", "instagram": "https://instagram.com/", "youtube": "https://youtube.com/@",
                            "tiktok": "https://tiktok.com/@", "linkedin": "https://linkedin.com/in/"}';
  links jsonb := '[]';
  k text;
  handle text;
begin
  if p_socials is null or p_socials = 'null'::jsonb then return links; end if;
  if jsonb_typeof(p_socials) <> 'object' then perform private.refuse('Social handles must be given per platform.'); end if;
  for k, handle in select key, trim(leading '@' from trim(value #>> '{}')) from jsonb_each(p_socials) loop
    if not bases ? k then perform private.refuse(format('%s is not a supported platform: use x, instagram, youtube, tiktok or linkedin.', k)); end if;
    continue when handle = '';
    if handle !~ '^[A-Za-z0-9_.-]{1,50}$' then
      perform private.refuse(format('The %s handle "%s" is not valid: letters, digits, dots, dashes and underscores only.', k, handle));
    end if;
    links := links || jsonb_build_object('platform', k, 'handle', handle, 'url', (bases ->> k) || handle);
  end loop;
  return links;
end $$;

create or replace function public.apply_for_token(p_display_name text, p_category text, p_bio text default '', p_socials jsonb default '{}')
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
  app public.token_applications;
begin
  perform 1 from public.profiles where id = uid for update; -- one application at a time per person
  if exists (select 1 from public.tokens where owner_id = uid) then perform private.refuse('You already have a token.'); end if;
  if exists (select 1 from public.token_applications where user_id = uid and status = 'pending') then
    perform private.refuse('Your application is already waiting for review.');
  end if;
  if char_length(trim(coalesce(p_display_name, ''))) not between 2 and 80 then
    perform private.refuse('The display name needs 2 to 80 characters.');
  end if;
  if not exists (select 1 from public.categories where name = p_category) then
    perform private.refuse('Choose one of the categories.');
  end if;
  if char_length(coalesce(p_bio, '')) > 500 then perform private.refuse('The bio has at most 500 characters.'); end if;
  insert into public.token_applications (user_id, display_name, category, bio, socials)
  values (uid, trim(p_display_name), p_category, coalesce(trim(p_bio), ''), private.social_links(p_socials))
  returning * into app;
  return to_jsonb(app);
end $$;

-- Admin: applications, oldest first.
create or replace function public.admin_list_applications(p_status text default 'pending')
returns table (id bigint, user_id uuid, username text, email text, display_name text, category text, bio text, socials jsonb,
               status text, reason text, token_id uuid, created_at timestamptz, decided_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return query
    select a.id, a.user_id, p.username, u.email::text, a.display_name, a.category, a.bio, a.socials, a.status, a.reason, a.token_id, a.created_at, a.decided_at
    from public.token_applications a join public.profiles p on p.id = a.user_id join auth.users u on u.id = a.user_id
    where p_status is null or a.status = p_status
    order by a.created_at, a.id
    limit 500;
end $$;

-- Approval issues the token in this one transaction: supply, founder allocation, and the offering
-- of the rest at the issue price on the order book. It is on the market at once.
create or replace function public.admin_approve_application(p_id bigint, p_total_supply bigint default null, p_issue_price numeric default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  s public.exchange_settings;
  app public.token_applications;
  owner public.profiles;
  supply bigint;
  price numeric;
  founder bigint;
  tok uuid;
begin
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  select * into owner from public.profiles where id = app.user_id for update;
  if owner.status <> 'active' then perform private.refuse('The applicant''s account is suspended.'); end if;
  if exists (select 1 from public.tokens where owner_id = app.user_id) then perform private.refuse('The applicant already has a token.'); end if;
  select * into s from public.exchange_settings;
  supply := coalesce(p_total_supply, s.token_supply);
  price := coalesce(p_issue_price, s.token_issue_price);
  if supply < 1000 or supply > 1000000000 then perform private.refuse('The total supply must be between 1,000 and 1,000,000,000 tokens.'); end if;
  -- No higher than anyone may ask on the market.
  if price <= 0 or price > s.max_price or price <> round(price, 2) then
    perform private.refuse(format('The issue price must be between $0.01 and %s, in cents.', private.money(s.max_price)));
  end if;
  if exists (select 1 from public.tokens where lower(username) = lower(owner.username)) then
    perform private.refuse(format('A token named @%s already exists.', owner.username));
  end if;
  founder := floor(supply * s.token_founder_bps / 10000.0)::bigint;

  insert into public.tokens (owner_id, name, username, category, reputation_score, total_supply, issue_price, avatar_url, verified)
  values (app.user_id, app.display_name, owner.username, app.category, 0, supply, price, owner.avatar_url, owner.verified)
  returning id into tok;
  if founder > 0 then perform private.issue_tokens(tok, app.user_id, founder); end if;
  -- Its first score, by the formula (reputation score migration), and the month's history point.
  update public.tokens set reputation_score = (public.reputation_components(tok) ->> 'score')::numeric where id = tok;
  insert into public.reputation_history (token_id, month, score)
  select tok, date_trunc('month', now())::date, reputation_score from public.tokens where id = tok;
  if supply > founder then
    perform private.issue_tokens(tok, private.issuance_account(), supply - founder);
    perform private.rest_order(private.issuance_account(), tok, 'sell', price, supply - founder);
  end if;
  update public.token_applications set status = 'approved', token_id = tok, decided_by = admin, decided_at = now() where id = p_id
  returning * into app;
  insert into public.market_events (token_id, kind) values (tok, 'book');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder);
end $$;

create or replace function public.admin_reject_application(p_id bigint, p_reason text)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  app public.token_applications;
begin
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give the applicant a reason of 3 to 500 characters.');
  end if;
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  update public.token_applications set status = 'rejected', reason = trim(p_reason), decided_by = admin, decided_at = now()
   where id = p_id returning * into app;
  perform private.audit('application.reject', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'rejected'), trim(p_reason));
  return to_jsonb(app);
end $$;

revoke execute on function public.apply_for_token(text, text, text, jsonb), public.admin_list_applications(text),
  public.admin_approve_application(bigint, bigint, numeric), public.admin_reject_application(bigint, text) from public, anon;
grant execute on function public.apply_for_token(text, text, text, jsonb), public.admin_list_applications(text),
  public.admin_approve_application(bigint, bigint, numeric), public.admin_reject_application(bigint, text) to authenticated;
revoke all on function private.audit(text, uuid, text, jsonb, jsonb, text), private.require_admin(),
  private.social_links(jsonb), private.forbid_audit_change() from public;
