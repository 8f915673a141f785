import fs from 'node:fs';

/** CPU seconds used so far by the load generator (this process), the server's process tree and PostgreSQL's processes. */
export interface CpuSample {
  loadGenerator: number;
  server: number;
  database: number;
}

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  seconds: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the project runs on

/** Every process's parent, name and CPU time (user + system), from /proc; empty where there is no /proc. */
function processes(): Proc[] {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const out: Proc[] = [];
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid ... utime stime ...": comm may hold spaces, so split after its ')'.
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      out.push({
        pid: Number(pid),
        ppid: Number(fields[1]),
        comm: stat.slice(stat.indexOf('(') + 1, close),
        seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
      });
    } catch {
      // The process ended while being read.
    }
  }
  return out;
}

/**
 * A sample of CPU time by part, or undefined off Linux. The server is `serverPid` and its
 * descendants (server processes forked by the cluster); the database is every process named
 * postgres on the machine (backends, WAL writer, checkpointer), so another database's work on a
 * shared server would count too. PGlite runs inside the server process.
 */
export function sampleCpu(serverPid: number | undefined): CpuSample | undefined {
  const all = processes();
  if (!all.length) return undefined;
  const tree = new Set(serverPid === undefined ? [] : [serverPid]);
  // Parents are listed before their children only by chance: repeat until the tree stops growing.
  for (let grown = true; grown;) {
    grown = false;
    for (const p of all)
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.add(p.pid);
        grown = true;
      }
  }
  const own = process.cpuUsage();
  return {
    loadGenerator: (own.user + own.system) / 1e6,
    server: all.filter((p) => tree.has(p.pid)).reduce((s, p) => s + p.seconds, 0),
    database: all.filter((p) => p.comm === 'postgres').reduce((s, p) => s + p.seconds, 0),
  };
}

/** Milliseconds of CPU per call of each part between two samples, and how many CPUs were busy on average. */
export function cpuPerCall(before: CpuSample, after: CpuSample, calls: number, seconds: number) {
  const part = (k: keyof CpuSample) => after[k] - before[k];
  const ms = (k: keyof CpuSample) => Math.round((part(k) * 1000 * 100) / calls) / 100;
  return {
    load_generator_ms: ms('loadGenerator'),
    server_ms: ms('server'),
    database_ms: ms('database'),
    cpus_busy: Math.round(((part('loadGenerator') + part('server') + part('database')) / seconds) * 100) / 100,
  };
}
