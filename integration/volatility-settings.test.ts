import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { referencedToken } from './harness/auctions';
import { placeOrder, trader } from './harness/market';

/* The volatility band and the auction's call period are the admin's (supabase/schemas/auctions.sql). */
describe.each(ENGINES)('the volatility auction settings on %s', (engine) => {
  const suite = adminSuite(engine);
  const market = () => referencedToken(suite.backend);
  const seller = (token: string) => trader(suite.backend, { token, tokens: 50, cash: 100 });
  const buyer = () => trader(suite.backend, { cash: 1000 });

  it('the admin sets the band and the call period, within their limits, audited', async () => {
    const set = (changes: Record<string, unknown>) =>
      suite.admin.rpc('admin_update_settings', { p_changes: changes, p_reason: 'Auction check.' });
    expect((await set({ volatility_band_bps: 99 })).error?.message).toBe(
      'The volatility band must be between 100 and 5,000 basis points (1% to 50%).',
    );
    expect((await set({ volatility_auction_seconds: 3601 })).error?.message).toBe(
      'A volatility auction lasts 5 to 3,600 seconds (an hour).',
    );
    try {
      expect((await set({ volatility_band_bps: 500, volatility_auction_seconds: 60 })).error).toBeNull();
      const token = await market();
      const s = await seller(token);
      expect((await placeOrder(s.client, token, 'sell', 'limit', 1, 10.6)).error).toBeNull();
      const b = await buyer();
      const placed = (await placeOrder(b.client, token, 'buy', 'market', 1)).data as { filled: number };
      expect(placed.filled).toBe(0);
      const [row] = await suite.backend.db.query<{ band_bps: number; seconds: number }>(
        'select band_bps, extract(epoch from ends_at - started_at)::int as seconds from volatility_auctions where token_id = $1',
        [token],
      );
      expect(row).toEqual({ band_bps: 500, seconds: 60 });
      const [audit] = await suite.backend.db.query<{ after: Record<string, number> }>(
        `select after from audit_log where action = 'settings.update' order by id desc limit 1`,
      );
      expect(audit!.after).toEqual({ volatility_band_bps: 500, volatility_auction_seconds: 60 });
    } finally {
      expect((await set({ volatility_band_bps: 2000, volatility_auction_seconds: 300 })).error).toBeNull();
    }
  });
});
