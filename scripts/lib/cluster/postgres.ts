import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { run, ownedFolder, type Tools } from './tools';

/** One PostgreSQL server of the cluster: its data folder, its port, and how to reach it. */
export interface PostgresServer {
  dir: string;
  port: number;
  /** The server's connection string for `database`. */
  url: (database?: string) => string;
  /** The postmaster's process id, as its postmaster.pid says. */
  pid: () => number;
  stop: () => void;
}

/** The database RepX uses on the cluster. */
export const DATABASE = 'repx';

function server(tools: Tools, dir: string, port: number): PostgresServer {
  return {
    dir,
    port,
    url: (database = DATABASE) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    pid: () => Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: () => {
      try {
        run(tools, tools.bin('pg_ctl'), ['-D', dir, '-m', 'fast', '-w', 'stop']);
      } catch {
        // not running
      }
    },
  };
}

/** Starts a server on its folder, listening on 127.0.0.1:port and a socket in the folder. */
function start(tools: Tools, dir: string, port: number): PostgresServer {
  run(tools, tools.bin('pg_ctl'), [
    '-D',
    dir,
    '-l',
    path.join(dir, 'server.log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    '-w',
    '-t',
    '60',
    'start',
  ]);
  return server(tools, dir, port);
}

/**
 * A throw-away primary made with the machine's own initdb: WAL for a streaming replica, trust on
 * loopback (as the CI's server), the RepX database created. What it is tuned for is a laptop-sized
 * exchange, not the machine's every megabyte.
 */
export async function startPrimary(tools: Tools, dir: string, port: number): Promise<PostgresServer> {
  ownedFolder(tools, dir);
  run(tools, tools.bin('initdb'), ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  fs.appendFileSync(
    path.join(dir, 'postgresql.conf'),
    [
      '',
      '# npm run cluster (scripts/lib/cluster/postgres.ts)',
      'wal_level = replica',
      'max_wal_senders = 5',
      'wal_keep_size = 512MB',
      'hot_standby = on',
      'max_connections = 200',
      'shared_buffers = 128MB',
      '',
    ].join('\n'),
  );
  const primary = start(tools, dir, port);
  const admin = new pg.Client({ connectionString: primary.url('postgres') });
  await admin.connect();
  await admin.query(`create database ${DATABASE}`);
  await admin.end();
  return primary;
}

/** A streaming replica of `primary`, made with pg_basebackup (-R writes how it follows), started hot. */
export function startReplica(tools: Tools, primary: PostgresServer, dir: string, port: number): PostgresServer {
  ownedFolder(tools, dir);
  run(tools, tools.bin('pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    dir,
    '-R',
    '-X',
    'stream',
    // At once, rather than waiting for a checkpoint spread over minutes.
    '--checkpoint=fast',
  ]);
  return start(tools, dir, port);
}

/** Starts a server again on the folder it had (a replica killed by a test comes back this way). */
export const restart = (tools: Tools, s: PostgresServer) => start(tools, s.dir, s.port);
