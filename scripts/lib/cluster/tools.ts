import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The machine's own PostgreSQL, PgBouncer and HAProxy, as Debian installs them
 * (`apt-get install postgresql pgbouncer haproxy`): where each is, and how to run it. PostgreSQL and
 * PgBouncer refuse to run as root, so as root they run as the `postgres` user the package made.
 */
export interface Tools {
  bin: (name: 'initdb' | 'pg_ctl' | 'pg_basebackup' | 'postgres') => string;
  pgbouncer: string;
  haproxy: string;
  /** The user PostgreSQL's and PgBouncer's files and processes belong to, when this process is root. */
  asUser?: string;
}

const which = (name: string) => {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
};

/** PostgreSQL's server programs: PG_BINDIR, or the newest /usr/lib/postgresql/<version>/bin. */
function postgresBinDir(): string | null {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

/** The tools, or what is missing and how to install it. */
export function findTools(): Tools | { missing: string[] } {
  const bindir = postgresBinDir();
  const pgbouncer = which('pgbouncer') ?? (fs.existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : null);
  const haproxy = which('haproxy') ?? (fs.existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : null);
  const missing = [
    ...(bindir ? [] : ['postgresql']),
    ...(pgbouncer ? [] : ['pgbouncer']),
    ...(haproxy ? [] : ['haproxy']),
  ];
  if (missing.length) return { missing };
  return {
    bin: (name) => path.join(bindir!, name),
    pgbouncer: pgbouncer!,
    haproxy: haproxy!,
    asUser: process.getuid?.() === 0 ? 'postgres' : undefined,
  };
}

/** A command as `tools.asUser` (via runuser) when set, else as this process's user. */
function asUser(tools: Tools, command: string, args: string[]): [string, string[]] {
  return tools.asUser ? ['runuser', ['-u', tools.asUser, '--', command, ...args]] : [command, args];
}

/** Runs a command to its end (initdb, pg_ctl, pg_basebackup); throws with its output if it fails. */
export function run(tools: Tools, command: string, args: string[], cwd?: string): void {
  const [cmd, argv] = asUser(tools, command, args);
  try {
    execFileSync(cmd, argv, { cwd, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${path.basename(command)} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

/** Starts a long-running program (PgBouncer, HAProxy) with its output in `log`. */
export function daemon(tools: Tools | null, command: string, args: string[], log: string, opts: SpawnOptions = {}) {
  const out = fs.openSync(log, 'a');
  const [cmd, argv] = tools ? asUser(tools, command, args) : [command, args];
  const child: ChildProcess = spawn(cmd, argv, { stdio: ['ignore', out, out], ...opts });
  fs.closeSync(out);
  return child;
}

/** A folder the tools' user owns (PostgreSQL checks its data folder's owner and mode). */
export function ownedFolder(tools: Tools, dir: string, mode = 0o700): void {
  fs.mkdirSync(dir, { recursive: true, mode });
  fs.chmodSync(dir, mode);
  if (tools.asUser) execFileSync('chown', ['-R', `${tools.asUser}:`, dir]);
}
