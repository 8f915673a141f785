/**
 * `tsx server/main.ts` runs the backend alone, with its settings from the environment:
 * one process, or one per CPU over PostgreSQL (cluster.ts).
 */
import { serve } from './cluster';
import { backendOptionsFromEnv } from './options';
import type { BackendOptions } from './index';

let opts: BackendOptions;
try {
  opts = backendOptionsFromEnv();
} catch (error) {
  console.error(error instanceof Error ? error.message : error); // a setting's own message, not a stack
  process.exit(1);
}
void serve(opts);
