import type { Backend } from '../server/index';
import { PATTERNS, runSurveillanceSuite } from '../scripts/surveillance/suite';
import { ENGINES, backendFor } from './harness/backends';

/**
 * The labelled surveillance suite (scripts/surveillance/suite.ts) with a small seed set: honest
 * traffic and each manipulation pattern through the real engine, then the fraud scan. Every
 * pattern's culprits are named by an alert of its rule, and almost no honest account is. The full
 * suite runs in `npm run bench`, which reports recall and the false-positive rate.
 */
describe.each(ENGINES)('surveillance measured on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('catches every planted pattern and flags at most 5% of honest accounts', async () => {
    const result = await runSurveillanceSuite(backend, { honest: 16, rounds: 4, instances: 1, seed: 7 });
    for (const p of PATTERNS)
      expect({ pattern: p, ...result.patterns[p] }).toEqual({ pattern: p, instances: 1, caught: 1, recall: 1 });
    expect(result.honest_trades).toBeGreaterThan(10); // the patterns hide in real traffic
    expect(result.recall).toBe(1);
    expect(result.false_positive_rate).toBeLessThanOrEqual(0.05);
  });
});
