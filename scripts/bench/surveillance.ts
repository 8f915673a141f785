import { runSurveillanceSuite, type SurveillanceResult } from '../surveillance/suite';
import { benchBackend, type Engine } from './common';

/** The full labelled suite's size: honest traders, their rounds of orders, instances of each pattern. */
export const SURVEILLANCE = {
  honest: Number(process.env.BENCH_SURVEILLANCE_HONEST ?? 100),
  rounds: 8,
  instances: Number(process.env.BENCH_SURVEILLANCE_INSTANCES ?? 5),
};

/** Surveillance measured: the labelled suite (scripts/surveillance/suite.ts) at full size, and how long the scan took. */
export async function benchSurveillance(engine: Engine): Promise<SurveillanceResult> {
  const { store, backend } = await benchBackend(engine, 'repex_bench_surveillance', { seed: true });
  try {
    return await runSurveillanceSuite(backend, { ...SURVEILLANCE, seed: 2026 });
  } finally {
    await backend.close();
    await store.cleanup();
  }
}
