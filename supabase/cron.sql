-- The scheduled jobs of a hosted Supabase project, for pg_cron (Database › Extensions › pg_cron),
-- run once after the migrations: psql "$DB_URL" -f supabase/cron.sql. Scheduling a name again
-- replaces its job, so the file can be run again after a change. The local server runs the same
-- calls from its own scheduler (server/index.ts); integration/cron.test.ts checks that
-- the two lists name the same functions and that every command here runs.
--
-- pg_cron never runs two of one job at once, and each job is one transaction unless it is a
-- procedure that commits: private.drain, for Auto-Invest and the offerings, commits after each plan
-- and each offering.

-- Matching: orders past their time, and stops a busy account left waiting (supabase/schemas/trading.sql).
select cron.schedule('expire-orders', '2 seconds', 'select private.expire_orders()');
select cron.schedule('due-stops', '2 seconds', 'select private.run_due_stops()');
-- API clients' dead-man's switches whose time has come (order_changes.sql).
select cron.schedule('cancel-after', '1 seconds', 'select private.fire_cancel_after()');
-- The market's 24h figures as trades leave the window (market.sql).
select cron.schedule('market-stats', '5 seconds', 'select private.slide_token_stats()');
-- Offerings whose window has passed (offerings.sql) and due Auto-Invest plans (auto_invest.sql).
select cron.schedule('offerings', '5 seconds', $$call private.drain('private.close_next_offering', 100)$$);
select cron.schedule('auto-invest', '5 seconds', $$call private.drain('private.run_next_plan', 1000)$$);
-- Volatility auctions (auctions.sql): holders told of a start, and each due auction uncrossed.
select cron.schedule('volatility-auctions', '1 seconds', $$call private.drain('private.step_volatility_auctions', 100)$$);
-- Founders' vesting (tokens.sql), the RepX index's levels (repx_index.sql), the fraud rules (fraud.sql).
select cron.schedule('vesting', '* * * * *', 'select private.release_vesting()');
select cron.schedule('repx-index', '* * * * *', 'select private.record_index_levels()');
-- Portfolio Analysis's closed days, kept 50 people a transaction (analysis.sql).
select cron.schedule('portfolio-closes', '* * * * *', $$call private.drain('private.keep_next_portfolio', 20)$$);
select cron.schedule('fraud-scan', '* * * * *', 'select private.scan_fraud()');
-- Trust and reputation scores, hourly (reputation.sql); retention (sessions.sql).
select cron.schedule('reputation', '0 * * * *', 'select private.refresh_reputation()');
select cron.schedule('retention', '*/10 * * * *', 'select private.prune()');
