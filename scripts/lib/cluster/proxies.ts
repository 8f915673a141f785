import fs from 'node:fs';
import path from 'node:path';
import { daemon, ownedFolder, type Tools } from './tools';
import { DATABASE, type PostgresServer } from './postgres';

/** A long-running part of the cluster: where it listens and its process. */
export interface Part {
  url: string;
  pid: () => number;
  stop: () => Promise<void>;
}

const exited = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

/** Ends a process and waits (up to 5 s) until it has. */
async function end(pid: number): Promise<void> {
  if (!pid || exited(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50 && !exited(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (!exited(pid)) process.kill(pid, 'SIGKILL');
}

/** Waits until something accepts connections on 127.0.0.1:port. */
export async function listening(port: number, ms = 15_000): Promise<void> {
  const net = await import('node:net');
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * PgBouncer in transaction mode in front of the primary (`repx`) and the replica
 * (`repx_replica`), as a hosted project's Supavisor on port 6543: a server connection is lent for
 * one transaction, so the server may keep no session state through it (db/postgres.ts).
 */
export async function startPooler(
  tools: Tools,
  dir: string,
  port: number,
  primary: PostgresServer,
  replica: PostgresServer,
): Promise<Part> {
  ownedFolder(tools, dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `${DATABASE} = host=127.0.0.1 port=${primary.port} dbname=${DATABASE} user=postgres`,
      `${DATABASE}_replica = host=127.0.0.1 port=${replica.port} dbname=${DATABASE} user=postgres`,
      '',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 2000',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits,options',
      // A server that died is tried again every second, not every fifteen (a replica restarted).
      'server_login_retry = 1',
      'server_connect_timeout = 2',
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  if (tools.asUser) fs.chmodSync(ini, 0o644);
  const pidFile = path.join(dir, 'pgbouncer.pid');
  fs.rmSync(pidFile, { force: true });
  daemon(tools, tools.pgbouncer, [ini], path.join(dir, 'pgbouncer.log'));
  await listening(port);
  const pid = () => Number(fs.readFileSync(pidFile, 'utf8').trim());
  return { url: `postgres://postgres@127.0.0.1:${port}/${DATABASE}`, pid, stop: () => end(pid()) };
}

/**
 * HAProxy in front of the hosts, for REST and WebSockets alike (an upgraded connection is a
 * tunnel), checking each host's /health every half second: one that fails twice stops receiving
 * requests within about a second, and one that passes twice receives them again. No stickiness:
 * every host serves any request (read-your-writes is the browser's word: rest/replica.ts).
 */
export async function startBalancer(
  tools: Tools,
  dir: string,
  port: number,
  hosts: { address: string; port: number }[],
): Promise<Part> {
  fs.mkdirSync(dir, { recursive: true });
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 8000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout tunnel 1h',
      '  retries 2',
      '  option redispatch',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend hosts',
      'backend hosts',
      '  balance roundrobin',
      '  option httpchk GET /health',
      '  http-check expect status 200',
      '  default-server inter 500ms fall 2 rise 2',
      ...hosts.map((h, i) => `  server host${i + 1} ${h.address}:${h.port} check`),
      '',
    ].join('\n'),
  );
  const child = daemon(null, tools.haproxy, ['-f', cfg, '-db'], path.join(dir, 'haproxy.log'));
  await listening(port);
  return { url: `http://localhost:${port}`, pid: () => child.pid ?? 0, stop: () => end(child.pid ?? 0) };
}
