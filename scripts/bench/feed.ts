import { signedIn } from '../../integration/harness/clients';
import { freshToken, makeKey, trader } from '../../integration/harness/market';
import { keyClient, subscribed } from '../../integration/harness/clients';
import { benchBackend, latencySummary, overHttp, type Engine } from './common';

/** Trades timed from the order's request to the feed's message, one at a time. */
const TRADES = 200;

/**
 * The book feed's latency (docs/api.md): a bot joined to `trades:<token>` with its API key, and
 * trades made one at a time by a market buy against a resting sell; each timed from the buy's
 * request to the trade's message, and from the buy's answer to the message (the relay's own
 * share: the message is queued in the order's transaction and read by the server after it commits).
 */
export async function benchFeed(engine: Engine) {
  const { store, backend } = await benchBackend(engine, 'repex_bench_feed', { seed: false });
  const token = await freshToken(backend, 100_000_000, 10);
  const maker = await trader(backend, { token, tokens: 1_000_000 });
  const taker = await trader(backend, { cash: 10_000_000 });
  const emails = await Promise.all([maker, taker].map(async (t) => (await t.client.auth.getUser()).data.user!.email!));
  const { key } = await makeKey(taker, ['read']);
  await backend.close();
  return overHttp(store, async (url) => {
    const [sells, buys] = await Promise.all(emails.map((email) => signedIn(url, { email, password: 'password-123' })));
    const bot = keyClient(url, key);
    await bot.realtime.setAuth();
    let heard: (() => void) | undefined;
    const channel = bot
      .channel(`trades:${token}`, { config: { private: true } })
      .on('broadcast', { event: 'trades' }, () => heard?.());
    await subscribed(channel);
    const fromRequest: number[] = [];
    const fromAnswer: number[] = [];
    for (let i = 0; i < TRADES; i++) {
      await sells!.rpc('place_order', { p_token: token, p_side: 'sell', p_type: 'limit', p_amount: 1, p_price: 10 });
      const arrived = new Promise<number>((resolve) => (heard = () => resolve(performance.now())));
      const start = performance.now();
      await buys!.rpc('place_order', { p_token: token, p_side: 'buy', p_type: 'market', p_amount: 1 });
      const answered = performance.now();
      const at = await arrived;
      fromRequest.push(at - start);
      fromAnswer.push(Math.max(0, at - answered));
    }
    await bot.removeAllChannels();
    return { from_request_ms: latencySummary(fromRequest), after_answer_ms: latencySummary(fromAnswer) };
  });
}
