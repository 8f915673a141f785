-- The market's tape is no longer announced by NOTIFY inside the trading transaction: on PostgreSQL
-- every notifying commit takes one global lock, which serialized all trading. Readers follow
-- public.market_events by id instead (the local server's Realtime polls it; Supabase Realtime
-- reads the publication). Tables that change now and then keep their NOTIFY.
drop trigger market_events_notify on public.market_events;
