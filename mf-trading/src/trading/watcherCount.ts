const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The people in a watchers room's presence: its keys that are user ids. The server lets a member
 * track under a key shaped like a user id only if it is their own, and the room is private to the
 * signed-in, so this counts accounts; a key of any other shape (a script's) is no one's.
 */
export function countWatchers(state: Record<string, unknown>): number {
  return Object.keys(state).filter((key) => USER_ID.test(key)).length;
}
