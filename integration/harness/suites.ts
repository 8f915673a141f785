import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../../server/index';
import { backendFor, type Engine } from './backends';
import { ADMIN, signedIn } from './clients';

/**
 * A describe block's backend on `engine` and its signed-in admin: started before the block's
 * tests, closed after them. Read them as `suite.backend` and `suite.admin` inside the tests.
 */
export function adminSuite(engine: Engine): { readonly backend: Backend; readonly admin: SupabaseClient } {
  const suite = {} as { backend: Backend; admin: SupabaseClient };
  beforeAll(async () => {
    suite.backend = await backendFor(engine)();
    suite.admin = await signedIn(suite.backend.url, ADMIN);
  });
  afterAll(() => suite.backend?.close());
  return suite;
}
