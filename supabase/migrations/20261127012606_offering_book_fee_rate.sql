-- offering_book_fee_rate: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop view if exists public.offering_book;

create view public.offering_book as
 SELECT f.id,
    f.token_id,
    f.supply,
    f.reserve_price,
    f.account_cap,
    f.fee_bps,
    f.opens_at,
    f.closes_at,
    f.closed_at,
    f.clearing_price,
    f.sold,
    c.price AS indicative_price,
    c.volume AS indicative_volume,
    c.demand
   FROM (offerings f
     LEFT JOIN LATERAL ( SELECT offering_clearing.price,
            offering_clearing.volume,
            offering_clearing.demand
           FROM private.offering_clearing(f.id) offering_clearing(price, volume, demand)
          WHERE (f.closed_at IS NULL)) c ON (true));

-- Re-created: its grants as the schema file gives them (db:diff drops them with the view).
revoke all on public.offering_book from anon;
grant select on public.offering_book to authenticated;
