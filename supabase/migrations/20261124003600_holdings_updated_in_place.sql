-- A trade's holdings updated in place. PostgreSQL updates a row in place (a HOT update: no new
-- entry in any of the table's indexes) only when no column an index covers changes, counting the
-- columns of an index's WHERE. holdings_token_idx covered only holdings with amount > 0, so every
-- settlement's change of a balance wrote a new entry into both of the table's indexes. Over 32
-- books at 32 clients (pg_walinspect, 3,200 orders), 0.24 of 1.51 holdings updates per order were
-- in place; with the index over every holding, 1.41 of 1.46, and an order wrote 12.7 index entries
-- instead of 14.3 and 2.96 KB of WAL instead of 3.3. The index's readers ask for a token's
-- holdings and say `amount > 0` themselves where they count holders (the sums of supply need no
-- filter); a holding sold down to zero stays a row, as before.
drop index public.holdings_token_idx;
create index holdings_token_idx on public.holdings (token_id);
