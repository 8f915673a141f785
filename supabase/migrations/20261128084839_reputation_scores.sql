-- reputation_scores: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table public.reputation_scores ();

alter table public.reputation_scores add column "token_id" uuid not null;

alter table public.reputation_scores add column "parts" jsonb not null;

alter table public.reputation_scores add column "scored_at" timestamp with time zone default now() not null;

CREATE OR REPLACE FUNCTION private.record_social_score(p_user uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  score numeric := (private.social_analysis(p_user) ->> 'score')::numeric;
begin
  update public.profiles p
     set followers = coalesce(x.followers, 0), following = coalesce(x.following, 0), engagement_rate = coalesce(x.rate, 0)
    from (select sum(a.followers) as followers, sum(a.following) as following,
                 round(sum(a.followers * a.engagement_rate) / nullif(sum(a.followers), 0), 2) as rate
            from public.social_accounts a where a.user_id = p_user and a.status = 'connected') x
   where p.id = p_user;
  if score is not null then
    insert into public.social_history (user_id, month, score) values (p_user, date_trunc('month', now())::date, score)
    on conflict (user_id, month) do update set score = excluded.score;
  end if;
  perform private.rescore(k.id) from public.tokens k where k.owner_id = p_user;
end $function$;

CREATE OR REPLACE FUNCTION private.refresh_reputation()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  changed integer := 0;
  tok uuid;
begin
  perform private.refresh_trust();
  -- Each token's row in token order, as the market figures' slide locks them (no deadlock).
  for tok in select k.id from public.tokens k order by k.id loop
    if private.rescore(tok) then changed := changed + 1; end if;
  end loop;
  insert into public.reputation_history (token_id, month, score)
  select k.id, date_trunc('month', now())::date, k.reputation_score from public.tokens k
  on conflict (token_id, month) do update set score = excluded.score;
  return changed;
end $function$;

CREATE OR REPLACE FUNCTION private.rescore(p_token uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  parts jsonb := public.reputation_components(p_token);
begin
  insert into public.reputation_scores (token_id, parts, scored_at) values (p_token, parts, now())
  on conflict (token_id) do update set parts = excluded.parts, scored_at = excluded.scored_at;
  update public.tokens k set reputation_score = (parts ->> 'score')::numeric
   where k.id = p_token and k.reputation_score is distinct from (parts ->> 'score')::numeric;
  return found;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_approve_application(p_id bigint, p_total_supply bigint DEFAULT NULL::bigint, p_issue_price numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  s public.exchange_settings;
  app public.token_applications;
  owner public.profiles;
  supply bigint;
  price numeric;
  founder bigint;
  tok uuid;
  offering_closes timestamptz;
begin
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  select * into owner from public.profiles where id = app.user_id for no key update;
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
  if founder > 0 then
    perform private.issue_tokens(tok, app.user_id, founder);
    -- The founder's allocation vests (a zero-month period releases it at once).
    insert into public.vesting_grants (token_id, user_id, total, cliff_months, months)
    values (tok, app.user_id, founder, least(s.founder_cliff_months, s.founder_vesting_months), s.founder_vesting_months);
    update public.holdings h set locked = h.amount - private.vested(g, now())
      from public.vesting_grants g where g.token_id = tok and h.token_id = tok and h.user_id = app.user_id;
  end if;
  -- Its first score, by the formula (reputation.sql), and the month's history point.
  perform private.rescore(tok);
  insert into public.reputation_history (token_id, month, score)
  select tok, date_trunc('month', now())::date, reputation_score from public.tokens where id = tok;
  -- The rest is offered by batch auction (offerings.sql); trading opens when it closes.
  if supply > founder then
    perform private.issue_tokens(tok, private.issuance_account(), supply - founder);
    offering_closes := (private.open_offering(tok, supply - founder, price)).closes_at;
  end if;
  update public.token_applications set status = 'approved', token_id = tok, decided_by = admin, decided_at = now() where id = p_id
  returning * into app;
  perform private.tell_market(tok, 'listed');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder, 'offering_closes_at', offering_closes);
end $function$;

CREATE OR REPLACE FUNCTION public.reputation_breakdown(p_token uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select s.parts || jsonb_build_object('scored_at', s.scored_at) from public.reputation_scores s where s.token_id = p_token
$function$;

alter table public.reputation_scores add constraint "reputation_scores_pkey" PRIMARY KEY (token_id);

alter table public.reputation_scores add constraint "reputation_scores_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

create policy "scores are visible to signed-in users" on public.reputation_scores as permissive for select to authenticated
  using (true);

alter table public.reputation_scores enable row level security;

revoke all on routine private.rescore(uuid) from public;

revoke all on routine public.reputation_breakdown(uuid) from anon;
revoke all on routine public.reputation_breakdown(uuid) from public;

revoke all on table public.reputation_scores from anon;
revoke insert, update, delete, truncate on table public.reputation_scores from authenticated;
