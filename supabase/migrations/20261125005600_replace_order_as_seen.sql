-- An Edit is made against the order as its owner saw it. The dialog offers what was left then;
-- if the order traded in between (a taker met it while the dialog was open), replacing it with
-- that amount would put more on the book than the owner meant: 100 resting, 60 taken meanwhile,
-- and a new 100 would make 160 traded or offered where they asked for 100. So the caller may say
-- how much of the order was filled when they looked (p_filled); if that changed by the time the
-- order is cancelled (under its lock, so the figure is final), nothing happens and the answer
-- says what is filled now, with PostgREST's 409 (PT409) so a client can tell it from a refusal of
-- the new terms. Without p_filled the call is as before.

drop function public.replace_order(bigint, numeric, numeric);

create function public.replace_order(p_order bigint, p_amount numeric, p_price numeric, p_filled bigint default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  o public.orders;
  filled_now bigint;
begin
  select * into o from public.orders where id = p_order and user_id = auth.uid();
  if o.status = 'open' and p_amount = o.amount - o.filled and p_price = o.price then
    raise exception 'Order #% already rests at that price and amount.', p_order using errcode = 'P0001';
  end if;
  -- It refuses a caller signed out, an order not theirs, one no longer open.
  perform public.cancel_order(p_order);
  select filled into filled_now from public.orders where id = p_order;
  if p_filled is not null and filled_now is distinct from p_filled then
    raise exception 'Order #% traded while you were changing it: % of % tokens are filled now, % left. Nothing was changed.',
      p_order, filled_now, o.amount, o.amount - filled_now using errcode = 'PT409';
  end if;
  return public.place_order(o.token_id, o.side, 'limit', p_amount, p_price) || jsonb_build_object('replaced', p_order);
end $$;
revoke execute on function public.replace_order(bigint, numeric, numeric, bigint) from public, anon;
