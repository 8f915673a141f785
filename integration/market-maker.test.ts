import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { freshToken, makeKey, placeOrder, trader } from './harness/market';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..');

/**
 * The reference market maker (scripts/marketMaker.ts) against a real server, with only its API key:
 * it quotes both sides, quotes again after a trade, and takes its quotes away when stopped; its
 * dead-man's switch is armed while it runs.
 */
describe.each(ENGINES)('npm run market-maker on %s', (engine) => {
  let backend: Backend;
  let maker: ChildProcess | undefined;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(async () => {
    maker?.kill('SIGKILL');
    await backend.close();
  });

  const quotes = (userId: string, token: string) =>
    backend.db.query<{ side: string; price: string; amount: string }>(
      `select side, price::text as price, (amount - filled)::text as amount from orders where user_id = $1 and token_id = $2 and status = 'open' order by side`,
      [userId, token],
    );

  it('quotes both sides around the last price, re-quotes after a fill, and cancels when stopped', async () => {
    const token = await freshToken(backend, 10_000, 20);
    const mm = await trader(backend, { cash: 10_000, token, tokens: 500 });
    const { key } = await makeKey(mm, ['read', 'trade']);
    let out = '';
    maker = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/marketMaker.ts', '--token', token, '--spread', '10', '--size', '5'],
      {
        cwd: ROOT,
        env: { ...process.env, REPX_API_KEY: key, REPX_URL: backend.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    maker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    maker.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    // $20 last price, 10% apart: a bid at $19.00 and an ask at $21.00, 5 tokens each.
    await eventually(async () => ((await quotes(mm.id, token)).length === 2 ? true : undefined), 30_000).catch(() => {
      throw new Error(`no quotes: ${out}`);
    });
    expect(await quotes(mm.id, token)).toEqual([
      { side: 'buy', price: '19.00', amount: '5' },
      { side: 'sell', price: '21.00', amount: '5' },
    ]);
    const [armed] = await backend.db.query('select seconds from private.cancel_after where user_id = $1', [mm.id]);
    expect(armed).toEqual({ seconds: 30 });

    // Someone buys the ask: the last price is now $21.00, and the quotes move around it.
    const buyer = await trader(backend, { cash: 1_000 });
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 5)).error).toBeNull();
    await eventually(async () => {
      const q = await quotes(mm.id, token);
      return q.length === 2 && q[0]!.price === '19.95' && q[1]!.price === '22.05' ? true : undefined;
    }, 30_000);

    // Stopped: its quotes and its switch go with it.
    maker.kill('SIGTERM');
    await eventually(async () => ((await quotes(mm.id, token)).length === 0 ? true : undefined), 15_000);
    await eventually(
      async () =>
        (await backend.db.query('select 1 from private.cancel_after where user_id = $1', [mm.id])).length
          ? undefined
          : true,
      15_000,
    );
  });
});
