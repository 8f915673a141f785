import type { Database } from '../db/database';
import type { JwtKeys } from '../auth/jwt';
import type { ApiKeys } from '../auth/apiKeys';
import type { createBroadcast } from './broadcast';
import type { createChanges } from './changes';
import type { followDatabaseBroadcasts } from './messages';
import type { Hub } from './hub';
import type { AddressBook, RealtimeLimits } from './limits';
import type { createPresence } from './presence';

/** What the socket's handlers share: the process's sockets, its limits and its three extensions. */
export interface Realtime {
  db: Database;
  keys: JwtKeys;
  apiKeys: ApiKeys;
  limits: RealtimeLimits;
  hub: Hub;
  addresses: AddressBook;
  presence: ReturnType<typeof createPresence>;
  broadcast: ReturnType<typeof createBroadcast>;
  changes: Awaited<ReturnType<typeof createChanges>>;
  /** Broadcast from the database (realtime.send): the market's messages and each account's. */
  messages: ReturnType<typeof followDatabaseBroadcasts>;
  /** Logs what went wrong in a handler no caller awaits. */
  fail: (e: unknown) => void;
}
