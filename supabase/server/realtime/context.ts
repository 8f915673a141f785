import type { Database } from '../db/database';
import type { JwtKeys } from '../auth/jwt';
import type { createBroadcast } from './broadcast';
import type { createChanges } from './changes';
import type { Hub } from './hub';
import type { AddressBook, RealtimeLimits } from './limits';
import type { createPresence } from './presence';

/** What the socket's handlers share: the process's sockets, its limits and its three extensions. */
export interface Realtime {
  db: Database;
  keys: JwtKeys;
  limits: RealtimeLimits;
  hub: Hub;
  addresses: AddressBook;
  presence: ReturnType<typeof createPresence>;
  broadcast: ReturnType<typeof createBroadcast>;
  changes: Awaited<ReturnType<typeof createChanges>>;
  /** Logs what went wrong in a handler no caller awaits. */
  fail: (e: unknown) => void;
}
