import { startBackend } from './supabase/server/index';
import { throwAwayStorage } from './supabase/harness/backends';
import { freshToken, trader } from './supabase/harness/market';
import { DEMO_JWT_SECRET } from './supabase/server/demo';
import { NO_RATE_LIMITS } from './supabase/server/http/rateLimit';
(async () => {
  const store = await throwAwayStorage('postgres', 'repex_micro');
  const b = await startBackend({ port: 0, seed: false, jwtSecret: DEMO_JWT_SECRET, rateLimits: NO_RATE_LIMITS, ...store.options });
  const token = await freshToken(b, 100_000_000);
  const s = await trader(b, { cash: 10_000_000, token, tokens: 1_000_000 });
  const u = await trader(b, { cash: 10_000_000, token, tokens: 1_000_000 });
  const claims = (id: string) => JSON.stringify({ sub: id, role: 'authenticated', aal: 'aal1' });
  const run = async (label: string) => {
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) {
      await b.db.query(`select set_config('request.jwt.claims', $1, true), public.place_order($2, 'sell', 'limit', 1, 10)`, [claims(s.id), token]);
      await b.db.query(`select set_config('request.jwt.claims', $1, true), public.place_order($2, 'buy', 'limit', 1, 10)`, [claims(u.id), token]);
    }
    console.log(label, (performance.now() - t0).toFixed(0), 'ms per 2000 orders');
  };
  await run('warm');
  await run('warm');
  for (let r = 0; r < 3; r++) await run('round');
  if (process.env.NO_CANDLES) {
    await b.db.exec('alter table trades disable trigger trades_candles');
    for (let r = 0; r < 2; r++) await run('round without candles');
  }
  await b.close();
  await store.cleanup();
})();
