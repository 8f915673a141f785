import type { DatabaseCounters } from './db/counted';
import type { Replica } from './db/replica';

/** Realtime's figures in one process (realtime/server.ts). */
export interface RealtimeFigures {
  sockets: number;
  channels: number;
  bufferedMax: number;
  bufferedTotal: number;
  framesSent: number;
  broadcastsDropped: number;
  channelsResynced: number;
  socketsClosedForBuffer: number;
  databaseMessages: number;
  visibilityDecisions: number;
}

/**
 * GET /metrics, for the service role only (a hosted project's privileged metrics endpoint asks the
 * same key): one process's figures in Prometheus's text format, so an operator's scraper, a load
 * test or a benchmark can tell what a request, a market event or an open screen costs the server
 * and its database. Each server process answers for itself.
 */
export function metricsText(db: DatabaseCounters, realtime: RealtimeFigures, replica?: Replica): string {
  const cpu = process.cpuUsage();
  const lines: [string, string, number, string][] = [
    ['repx_db_round_trips_total', 'counter', db.roundTrips, 'Round trips to the database since the process started.'],
    ['repx_realtime_sockets', 'gauge', realtime.sockets, 'Realtime sockets open now.'],
    ['repx_realtime_channels', 'gauge', realtime.channels, 'Channels joined on them now.'],
    ['repx_realtime_buffered_bytes_max', 'gauge', realtime.bufferedMax, 'The largest send queue of one socket now.'],
    ['repx_realtime_buffered_bytes', 'gauge', realtime.bufferedTotal, 'Bytes queued for all sockets now.'],
    ['repx_realtime_frames_sent_total', 'counter', realtime.framesSent, 'Frames written to sockets.'],
    [
      'repx_realtime_database_messages_total',
      'counter',
      realtime.databaseMessages,
      'Messages read from realtime.messages and relayed.',
    ],
    [
      'repx_realtime_visibility_decisions_total',
      'counter',
      realtime.visibilityDecisions,
      'Statements that decided who may see a row change.',
    ],
    [
      'repx_realtime_broadcasts_dropped_total',
      'counter',
      realtime.broadcastsDropped,
      'Broadcasts a slow socket missed.',
    ],
    [
      'repx_realtime_channels_resynced_total',
      'counter',
      realtime.channelsResynced,
      'Channels told to rejoin and read again.',
    ],
    [
      'repx_realtime_sockets_closed_for_buffer_total',
      'counter',
      realtime.socketsClosedForBuffer,
      'Sockets closed, their queue past the hard bound.',
    ],
    ...(replica
      ? ([
          [
            'repx_replica_lag_ms',
            'gauge',
            Number.isFinite(replica.lag) ? replica.lag : -1,
            "The replica's lag as last read (-1: not answering).",
          ],
          ['repx_replica_usable', 'gauge', replica.usable ? 1 : 0, 'Whether reads go to the replica now.'],
          ['repx_replica_reads_total', 'counter', replica.counters.served, 'Reads the replica served.'],
          [
            'repx_replica_fallbacks_total',
            'counter',
            replica.counters.fellBack,
            'Replica reads answered by the primary instead.',
          ],
        ] as [string, string, number, string][])
      : []),
    ['process_cpu_user_seconds_total', 'counter', cpu.user / 1e6, 'User CPU time of this process.'],
    ['process_cpu_system_seconds_total', 'counter', cpu.system / 1e6, 'System CPU time of this process.'],
    ['process_resident_memory_bytes', 'gauge', process.memoryUsage.rss(), 'Resident memory of this process.'],
    ['nodejs_heap_used_bytes', 'gauge', process.memoryUsage().heapUsed, 'V8 heap in use.'],
  ];
  return lines
    .map(([name, type, value, help]) => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}\n`)
    .join('');
}

/** One metric's value from the text metricsText writes (for tests and the benchmark). */
export function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`no metric ${name}`);
  return Number(m[1]);
}
