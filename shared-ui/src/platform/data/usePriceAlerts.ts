import { formatPrice } from '../../ui/format';
import { supabase } from '../supabase';
import { toast } from '../toast/toastStore';
import { useAccountFeed } from './feeds';
import { unwrap, useQuery } from './useQuery';

/** What an alert waits for: a price at or above a level, at or below one, or a move within 24 hours. */
export type AlertKind = 'above' | 'below' | 'move';

const loadAlerts = async (tokenId: string | null) => {
  let q = supabase().from('my_price_alerts').select('*');
  if (tokenId) q = q.eq('token_id', tokenId);
  return unwrap(await q.order('created_at', { ascending: false }).order('id', { ascending: false }));
};
/** One of the user's alerts, with its token's name and, once fired, what it says. */
export type PriceAlert = Awaited<ReturnType<typeof loadAlerts>>[number];

/**
 * The user's price alerts (on one token, or all of them), read again when one fired (the
 * account's notes say so); and setting, changing and removing them, each told in a toast, or refused in the database's
 * words. The rules (levels, the most a user may have) are the database's (set_price_alert).
 */
export function usePriceAlerts(tokenId: string | null) {
  const alerts = useQuery(() => loadAlerts(tokenId), [tokenId]);
  useAccountFeed((notes) => notes.some((n) => n.what === 'alert') && alerts.reload(), alerts.reload);

  /** Sets a new alert, or changes `alert`: resolves to the refusal's words, or null once saved. */
  const save = async (terms: { tokenId: string; kind: AlertKind; value: number; alert?: number }) => {
    const { error } = await supabase().rpc('set_price_alert', {
      p_token: terms.tokenId,
      p_kind: terms.kind,
      p_value: terms.value,
      p_alert: terms.alert ?? null,
    });
    if (error) return error.message;
    toast({ title: terms.alert ? 'Alert Changed' : 'Alert Set', description: describeAlert(terms) });
    alerts.reload();
    return null;
  };
  const remove = async (id: number) => {
    const { error } = await supabase().rpc('delete_price_alert', { p_alert: id });
    if (error) toast({ title: 'Alert Not Removed', description: error.message, variant: 'destructive' });
    else toast({ title: 'Alert Removed', description: `Price alert #${id} is removed.` });
    alerts.reload();
  };
  return { alerts, save, remove };
}

/** An alert's condition in words: 'at or above $46.00', 'a move of 5% within 24 hours'. */
export function describeAlert(a: { kind: AlertKind; value: number }): string {
  const price = formatPrice(a.value);
  if (a.kind === 'above') return `When the price trades at or above ${price}.`;
  if (a.kind === 'below') return `When the price trades at or below ${price}.`;
  return `When the price moves ${a.value}% or more within 24 hours.`;
}
