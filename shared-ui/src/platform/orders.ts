import { formatCount } from '../ui/format';
import { supabase } from './supabase';
import { toast } from './toast/toastStore';

/*
 * Cancelling orders, as every screen that lists them does it: the call, then a toast saying what
 * happened, or the database's refusal in its own words. Resolves to whether the call went through.
 */

export async function cancelOrder(id: number): Promise<boolean> {
  const { error } = await supabase().rpc('cancel_order', { p_order: id });
  if (error) toast({ title: 'Cancel Failed', description: error.message, variant: 'destructive' });
  else toast({ title: 'Order Cancelled', description: `Order #${id} was cancelled and its funds released.` });
  return !error;
}

export async function cancelAllOrders(): Promise<boolean> {
  const { data, error } = await supabase().rpc('cancel_all_orders');
  if (error) toast({ title: 'Cancel Failed', description: error.message, variant: 'destructive' });
  else
    toast({
      title: 'Orders Cancelled',
      description: `${formatCount(data, 'order')} cancelled; ${data === 1 ? 'its' : 'their'} funds are released.`,
    });
  return !error;
}

/**
 * Replaces a resting order at new terms (replace_order: cancel and place in one transaction),
 * unless it traded since `order.filled` was read: then the database changes nothing (PT409).
 */
export const replaceOrder = async (
  order: { id: number; filled: number },
  terms: { amount: number | null; price: number | null; stopPrice?: number | null },
) =>
  await supabase().rpc('replace_order', {
    p_order: order.id,
    p_amount: terms.amount,
    p_price: terms.price,
    p_filled: order.filled,
    p_stop_price: terms.stopPrice ?? null,
  });
