-- What cash and holdings columns mean, said once in the catalog (psql's \d+, Supabase's table
-- editor and any generated types show it). `available` and `reserved` mean the same in both
-- tables: what the owner may spend or sell now, and what their resting orders hold back.
-- Only holdings has a total of its own (`amount`, which includes `reserved`); cash has none.
comment on column public.cash_accounts.available is
  'Cash the owner may spend or withdraw now. Excludes reserved and pending_withdrawal.';
comment on column public.cash_accounts.reserved is
  'Cash held back by the owner''s resting buy orders (value + fee); released on cancel, spent on fill.';
comment on column public.cash_accounts.pending_withdrawal is
  'Cash held for the owner''s pending withdrawals; paid out, or back to available if cancelled or failed.';
comment on column public.holdings.amount is
  'Tokens the owner holds in all, including those reserved by resting sell orders.';
comment on column public.holdings.reserved is
  'Tokens held back by the owner''s resting sell orders; part of amount, released on cancel.';
comment on column public.holdings.available is
  'Tokens the owner may sell now: amount - reserved (generated).';
