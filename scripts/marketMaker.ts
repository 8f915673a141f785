/**
 * npm run market-maker -- --token <id> [--spread 2] [--size 10] [--heartbeat 30]
 *
 * A reference market maker for RepX's API (docs/api.md): an example, not a product feature. It
 * uses only the public API, through the unmodified supabase-js, with the key in REPX_API_KEY (a key
 * with the trade scope), against REPX_URL (the local server unless told) and REPX_ANON_KEY.
 *
 * It quotes a bid and an ask `spread` percent apart around the last price, `size` tokens each,
 * places them again after every trade on the token's tape, and keeps the dead-man's switch
 * (cancel_all_after) armed: if this process dies, its quotes are cancelled within `heartbeat`
 * seconds.
 */
import { parseArgs } from 'node:util';
import { createClient } from '@supabase/supabase-js';
import { DEMO_ANON_KEY } from '../server/demo';

const { values } = parseArgs({
  options: {
    token: { type: 'string' },
    spread: { type: 'string', default: '2' },
    size: { type: 'string', default: '10' },
    heartbeat: { type: 'string', default: '30' },
  },
});
const key = process.env.REPX_API_KEY;
if (!values.token || !key) {
  console.error('Usage: REPX_API_KEY=repx_... npm run market-maker -- --token <token id> [--spread 2] [--size 10]');
  process.exit(2);
}
const token = values.token;
const spread = Number(values.spread) / 100;
const size = Number(values.size);
const heartbeat = Number(values.heartbeat);

const api = createClient(process.env.REPX_URL ?? 'http://localhost:54321', process.env.REPX_ANON_KEY ?? DEMO_ANON_KEY, {
  accessToken: () => Promise.resolve(key),
});

const cents = (n: number) => Math.max(0.01, Math.round(n * 100) / 100);
let generation = 0;

/** Cancels this account's quotes in the token and places a fresh bid and ask around the last price. */
async function quote(): Promise<void> {
  const run = ++generation;
  const { data: token_row, error } = await api.from('market_tokens').select('name, price').eq('id', token).single();
  if (error) throw new Error(error.message);
  if (run !== generation) return; // a newer trade asked for newer quotes
  const mid = Number(token_row.price);
  await api.rpc('cancel_all_orders', { p_token: token });
  const orders = [
    { token, side: 'buy', type: 'limit', amount: size, price: cents(mid * (1 - spread / 2)), post_only: true },
    { token, side: 'sell', type: 'limit', amount: size, price: cents(mid * (1 + spread / 2)), post_only: true },
  ];
  const { data: placed, error: refused } = await api.rpc('place_orders', { p_orders: orders });
  if (refused) throw new Error(refused.message);
  const said = (placed as { status?: string; error?: string }[]).map((r, i) =>
    r.error
      ? `${orders[i]!.side} refused: ${r.error}`
      : `${orders[i]!.side} ${size} at $${orders[i]!.price.toFixed(2)}`,
  );
  console.log(`${new Date().toISOString()} ${token_row.name} at $${mid.toFixed(2)}: ${said.join('; ')}`);
}

async function main(): Promise<void> {
  const arm = async () => {
    const { error } = await api.rpc('cancel_all_after', { p_seconds: heartbeat });
    if (error) console.error(`heartbeat refused: ${error.message}`);
  };
  await arm();
  setInterval(() => void arm(), (heartbeat * 1000) / 3);
  await quote();
  await api.realtime.setAuth();
  api
    .channel(`trades:${token}`, { config: { private: true } })
    .on('broadcast', { event: 'trades' }, () => void quote().catch((e: unknown) => console.error(String(e))))
    .subscribe((status, err) => {
      if (err) console.error(`trades feed: ${status} ${err.message}`);
    });
  const stop = async () => {
    await api.rpc('cancel_all_orders', { p_token: token });
    await api.rpc('cancel_all_after', { p_seconds: 0 });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
