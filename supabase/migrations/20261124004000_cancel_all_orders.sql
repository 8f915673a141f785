-- Cancel all: every open order of the caller (or those on one token) in one transaction.
--
-- A user saw their resting orders only token by token, each cancelled on its own, so pulling out
-- of the market (a price moving against them, a lost device) took one trip per order, and a
-- failure midway left some standing. All of them now go at once, or none: each book is locked
-- first, in the order of its token's id (an order locks one book, so no order can hold a book
-- this waits for while waiting for one this holds), then each order is released as cancel_order
-- releases it. Answers how many were cancelled.

create or replace function public.cancel_all_orders(p_token uuid default null) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  books uuid[];
  o bigint;
  n integer := 0;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  select coalesce(array_agg(distinct token_id order by token_id), '{}') into books
  from public.orders where user_id = uid and status = 'open' and (p_token is null or token_id = p_token);
  perform 1 from public.tokens where id = any (books) order by id for update;
  for o in
    select id from public.orders
    where user_id = uid and status = 'open' and token_id = any (books)
    order by id for update
  loop
    perform private.release_order(o);
    n := n + 1;
  end loop;
  insert into public.market_events (token_id, kind) select b, 'book' from unnest(books) b;
  return n;
end $$;

revoke execute on function public.cancel_all_orders(uuid) from public, anon;
