/**
 * The payment-provider interface: what the ledger needs from a card or bank rail. The worker
 * (worker.ts) hands each deposit or withdrawal to `charge` or `payout` with its reference, which
 * is the provider's idempotency key: asked twice for one reference (after a crash, say), a
 * provider must answer for the same single payment. The outcome is applied to the ledger by
 * `public.settle_payment(reference, succeeded, message)`, exactly once per reference.
 *
 * To plug in a real provider on a hosted deployment, implement this interface (or answer the
 * provider's webhook in an Edge Function) and call `settle_payment` with the service-role key;
 * the ledger does not change.
 */
export interface PaymentRequest {
  /** Ours, unique per payment; sent to the provider as its idempotency key. */
  reference: string;
  /** Dollars, as the database's numeric text ('100.00'). */
  amount: string;
  /** What the person chose: 'Card •••• 4242' for a deposit, 'Checking •••• 6789' for a withdrawal. */
  method: string;
}

export type PaymentOutcome = { succeeded: true } | { succeeded: false; message: string };

export interface PaymentProvider {
  readonly name: string;
  /** Takes money from the person's card into the exchange (a deposit). */
  charge(request: PaymentRequest): Promise<PaymentOutcome>;
  /** Sends money from the exchange to the person's account (a withdrawal). */
  payout(request: PaymentRequest): Promise<PaymentOutcome>;
}
