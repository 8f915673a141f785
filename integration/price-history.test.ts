import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, placeOrder, trader, type Trader } from './harness/market';

interface Point {
  bucket: string;
  price: number | null;
}

const HOUR = 3_600_000;

describe.each(ENGINES)('price_history (the trading chart) on %s', (engine) => {
  let backend: Backend;
  let reader: Trader;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    reader = await trader(backend);
  });
  afterAll(() => backend.close());

  const history = async (token: string) => {
    const { data, error } = await reader.client.rpc('price_history', { p_token: token, p_hours: 24 });
    expect(error).toBeNull();
    return data as Point[];
  };
  const listedAgo = async (token: string, ago: string) => {
    const [row] = await backend.db.query<{ created_at: Date }>(
      'update tokens set created_at = now() - $2::interval where id = $1 returning created_at',
      [token, ago],
    );
    return row!.created_at;
  };

  it('has a price for each of the last 24 hours of a token listed before them, the issue price before a trade', async () => {
    const token = await freshToken(backend);
    await listedAgo(token, '2 days');
    const points = await history(token);
    expect(points).toHaveLength(24);
    expect(points.map((p) => p.price)).toEqual(Array(24).fill(10));
    const times = points.map((p) => Date.parse(p.bucket));
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual(Array(23).fill(HOUR));
    expect(times[23]).toBeLessThanOrEqual(Date.now());
    expect(times[23]).toBeGreaterThan(Date.now() - HOUR);
  });

  it('leaves the hours before a new listing empty and starts at the listing hour; the last trade closes the hour', async () => {
    const token = await freshToken(backend, 1000);
    const listed = await listedAgo(token, '150 minutes');
    const seller = await trader(backend, { cash: 100, token, tokens: 10 });
    const buyer = await trader(backend, { cash: 1_000 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 12)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 5)).error).toBeNull();

    const points = await history(token);
    expect(points).toHaveLength(24);
    const listingHour = Math.floor(listed.getTime() / HOUR) * HOUR;
    const before = points.filter((p) => Date.parse(p.bucket) < listingHour);
    const since = points.filter((p) => Date.parse(p.bucket) >= listingHour);
    expect(before.every((p) => p.price === null)).toBe(true);
    // 150 minutes ago is in the hour three or four hours back, depending on the minute now.
    expect(since.length).toBeGreaterThanOrEqual(3);
    expect(since.length).toBeLessThanOrEqual(4);
    expect(since.map((p) => p.price)).toEqual([...Array(since.length - 1).fill(10), 12]);
  });

  it('has no price at all for a token that does not exist, and no error', async () => {
    const points = await history('00000000-0000-4000-8000-000000000000');
    expect(points).toHaveLength(24);
    expect(points.every((p) => p.price === null)).toBe(true);
  });
});
