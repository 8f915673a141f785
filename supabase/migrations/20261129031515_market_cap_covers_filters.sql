-- market_cap_covers_filters: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop index if exists private.token_stats_market_cap_idx;

CREATE INDEX token_stats_market_cap_idx ON private.token_stats USING btree (market_cap, token_id) INCLUDE (price, change_24h, volume_24h, reputation_score, category, verified, halted);
