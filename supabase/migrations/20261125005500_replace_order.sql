-- Changing a resting limit order's price or amount, as exchanges' Edit: the order is cancelled and
-- a new one placed for what is left to trade, in one transaction, so either both happen or
-- neither (a new price the cash does not cover, a halted token, an order filled meanwhile leave
-- the old order as it was). The new order has a new id and takes its place in the book at its
-- new time, as a replaced order does on most exchanges; it may trade at once if its new price
-- crosses. The old one stays in the history as cancelled, with what it had filled.

create or replace function public.replace_order(p_order bigint, p_amount numeric, p_price numeric)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  o public.orders;
begin
  select * into o from public.orders where id = p_order and user_id = auth.uid();
  if o.status = 'open' and p_amount = o.amount - o.filled and p_price = o.price then
    raise exception 'Order #% already rests at that price and amount.', p_order using errcode = 'P0001';
  end if;
  -- It refuses a caller signed out, an order not theirs, one no longer open.
  perform public.cancel_order(p_order);
  return public.place_order(o.token_id, o.side, 'limit', p_amount, p_price) || jsonb_build_object('replaced', p_order);
end $$;
revoke execute on function public.replace_order(bigint, numeric, numeric) from public, anon;
