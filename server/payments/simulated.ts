import type { PaymentOutcome, PaymentProvider, PaymentRequest } from './provider';

/**
 * The built-in rail: behaves like a card processor's test mode. It answers after a delay, and its
 * answer depends only on the card's or account's last four digits, so asking twice for one
 * reference gives the same answer (idempotent, as a real provider is by idempotency key).
 *
 * Test numbers (documented in the README):
 *   card 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined; 4000 0000 0000 9995 has
 *   insufficient funds; an account number ending in 0002 is rejected by the receiving bank.
 */
const DECLINES: Record<string, { charge?: string; payout?: string }> = {
  '0002': {
    charge: 'Your card was declined.',
    payout: 'The receiving bank rejected the transfer: the account is closed.',
  },
  '9995': { charge: 'Your card has insufficient funds.' },
};

export function simulatedProvider(delayMs: number): PaymentProvider {
  const answer = async (request: PaymentRequest, kind: 'charge' | 'payout'): Promise<PaymentOutcome> => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const last4 = /(\d{4})$/.exec(request.method)?.[1] ?? '';
    const message = DECLINES[last4]?.[kind];
    return message ? { succeeded: false, message } : { succeeded: true };
  };
  return {
    name: 'simulated',
    charge: (request) => answer(request, 'charge'),
    payout: (request) => answer(request, 'payout'),
  };
}
