import type { Database, Queryable } from './database';

/** What the server has asked of its database since it started (the /metrics endpoint reads it). */
export interface DatabaseCounters {
  /** Round trips: a query, a pipeline (one however many statements), a transaction's each statement. */
  roundTrips: number;
}

/**
 * The database, counting the round trips the server makes to it, so that what an event, a
 * request or a screen costs the database can be measured from outside (npm run bench's fan-out
 * run reads it before and after).
 */
export function counted(db: Database): Database & { counters: DatabaseCounters } {
  const counters: DatabaseCounters = { roundTrips: 0 };
  const countedTx = (tx: Queryable): Queryable => ({
    query: (sql, params) => {
      counters.roundTrips++;
      return tx.query(sql, params);
    },
  });
  return {
    kind: db.kind,
    counters,
    query: (sql, params) => {
      counters.roundTrips++;
      return db.query(sql, params);
    },
    exec: (sql) => {
      counters.roundTrips++;
      return db.exec(sql);
    },
    transaction: (fn) => db.transaction((tx) => fn(countedTx(tx))),
    pipeline: (statements) => {
      counters.roundTrips++;
      return db.pipeline(statements);
    },
    listen: (channel, onPayload) => db.listen(channel, onPayload),
    close: () => db.close(),
  };
}
