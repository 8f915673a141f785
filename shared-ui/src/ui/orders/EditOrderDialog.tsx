import { useState } from 'react';
import type { OrderResult } from '../../contracts/results';
import { formatInteger, formatPrice } from '../format';
import { TextField } from '../primitives/Dialog';
import { FormDialog } from '../primitives/FormDialog';
import { Muted } from '../primitives/States';
import { describeResult } from './orderResult';

/** A resting limit order or a waiting stop, as the screens that offer Edit list it. */
export interface RestingOrder {
  id: number;
  /** A limit's price; none for a stop-market. */
  price: number | null;
  amount: number;
  filled: number;
  /** A waiting stop's trigger. */
  stop_price?: number | null;
  status?: string;
}

/** What the dialog tells the person when it closes: the platform's `toast`, handed in. */
export type Tell = (notice: { title: string; description?: string; variant?: 'default' | 'destructive' }) => void;

/** The new terms of an edited order; a field left out keeps what the order has. */
export interface NewTerms {
  amount: number | null;
  price: number | null;
  stopPrice?: number | null;
}

/**
 * Edit: a resting order's price or what is left of its amount, changed by replace_order (cancel
 * and place in one transaction: either both happen or neither). The database checks the new
 * order as any other; its refusal is shown here and the old order stays. An order that traded
 * while the dialog was open is left as it is: the dialog closes, says so, and the list reloads.
 * In the UI kit because two remotes offer it (the trading screen and the dashboard's Orders tab),
 * and a remote never imports another; the call itself is the platform's `replaceOrder`, handed in
 * as `replace`, and the notice its `toast`, handed in as `tell`: the kit holds no client and no
 * store, and imports nothing of the platform (which imports the kit's formats).
 */
export function EditOrderDialog({
  order,
  tokenName,
  onClose,
  onChanged,
  replace,
  tell,
}: {
  order: RestingOrder;
  tokenName: string;
  onClose: () => void;
  /** Replaces the order at the new terms, unless it traded meanwhile (the database's PT409). */
  replace: (
    order: RestingOrder,
    terms: NewTerms,
  ) => Promise<{ data: OrderResult; error: null } | { data: null; error: { code: string; message: string } }>;
  tell: Tell;
  /** Reads the orders again; a screen that follows the market's events has them read on the event. */
  onChanged?: () => void;
}) {
  const stop = order.status === 'pending' && order.stop_price != null;
  const [amount, setAmount] = useState(String(order.amount - order.filled));
  const [price, setPrice] = useState(order.price?.toFixed(2) ?? '');
  const [trigger, setTrigger] = useState(order.stop_price?.toFixed(2) ?? '');
  const send = async () => {
    const [a, p, t] = [amount, price, trigger].map((text) => (text.trim() ? Number(text) : null));
    if (Number.isNaN(a) || Number.isNaN(p) || Number.isNaN(t))
      return 'Write the amount and the prices as plain numbers, like 20 and 12.50.';
    // Made against the order as shown: if it traded meanwhile, the database changes nothing (PT409).
    const { data, error } = await replace(order, {
      amount: a ?? null,
      price: order.price === null ? null : (p ?? null),
      ...(stop ? { stopPrice: t ?? null } : {}),
    });
    if (error?.code === 'PT409') {
      tell({ title: 'Order Not Changed', description: error.message, variant: 'destructive' });
      onChanged?.();
      return null;
    }
    if (error) return error.message;
    const result =
      data.status === 'pending'
        ? { title: 'Stop Changed', description: `Order #${data.order_id} now waits for ${formatPrice(t ?? 0)}.` }
        : describeResult(data, tokenName, p ?? undefined);
    tell({ ...result, title: result.title === 'Order Placed' ? 'Order Changed' : result.title });
    onChanged?.();
    return null;
  };
  return (
    <FormDialog
      title={`Edit Order #${order.id}`}
      submitLabel="Save Changes"
      busyLabel="Saving..."
      send={send}
      onClose={onClose}
    >
      <Muted>
        {stop
          ? 'The stop is replaced by a new one at its new terms: it waits for its new trigger from now.'
          : 'The order is replaced by a new one at its new terms: it takes its place in the book from now, and trades at once if its price meets the other side.'}
        {order.filled > 0 && ` The ${formatInteger(order.filled)} already filled stay filled.`}
      </Muted>
      <TextField
        id="edit-order-amount"
        label="Tokens"
        inputMode="numeric"
        value={amount}
        onValue={setAmount}
        required
      />
      {stop && (
        <TextField
          id="edit-order-trigger"
          label="Trigger Price (USD)"
          inputMode="decimal"
          value={trigger}
          onValue={setTrigger}
          required
        />
      )}
      {order.price !== null && (
        <TextField
          id="edit-order-price"
          label="Limit Price (USD)"
          inputMode="decimal"
          value={price}
          onValue={setPrice}
          required
        />
      )}
    </FormDialog>
  );
}
