import type { Backend } from '../../server/index';
import { eventually } from './backends';
import { freshToken, trader } from './market';

/** A new token whose last trade at least five minutes old was at $10.00: its volatility band's reference. */
export async function referencedToken(backend: Backend): Promise<string> {
  const token = await freshToken(backend);
  const [a, b] = [await trader(backend, { token, tokens: 10, cash: 100 }), await trader(backend, { cash: 100 })];
  await backend.db.query(
    `select private.settle_trade($1, $2, $3, 10, 1, 'buy', null, null, 0, false, now() - interval '10 minutes')`,
    [token, b.id, a.id],
  );
  return token;
}

/** What market_tokens says of the token's trading now. */
export async function phase(backend: Backend, token: string) {
  const [row] = await backend.db.query<{ trading_phase: string; auction_until: string | null }>(
    'select trading_phase, auction_until from market_tokens where id = $1',
    [token],
  );
  return row!;
}

/**
 * As if the call period had passed: the scheduler's steps until the token's auction has uncrossed.
 * The server's own scheduler may be uncrossing it meanwhile (a step skips an auction another
 * holds), so this waits for the outcome rather than counting its own steps.
 */
export async function uncross(backend: Backend, token: string): Promise<void> {
  await backend.db.query(
    `update volatility_auctions set ends_at = now() where token_id = $1 and uncrossed_at is null`,
    [token],
  );
  await eventually(async () => {
    const [open] = await backend.db.query(
      'select 1 from volatility_auctions where token_id = $1 and uncrossed_at is null',
      [token],
    );
    if (!open) return true;
    await backend.db.query('select private.step_volatility_auctions()');
    return undefined;
  }).catch(() => {
    throw new Error('the auction did not uncross');
  });
}
