import fs from 'node:fs';

/** CPU seconds used so far by the load generator (this process), the server's process tree and PostgreSQL's processes. */
export interface CpuSample {
  loadGenerator: number;
  server: number;
  database: number;
  /** The server's and the database's processes, by pid: which part each is and its CPU seconds. */
  processes: Map<number, { part: 'server' | 'database'; seconds: number }>;
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
  const parts = new Map<number, { part: 'server' | 'database'; seconds: number }>();
  for (const p of all) {
    if (tree.has(p.pid)) parts.set(p.pid, { part: 'server', seconds: p.seconds });
    else if (p.comm === 'postgres') parts.set(p.pid, { part: 'database', seconds: p.seconds });
  }
  const sum = (part: 'server' | 'database') =>
    [...parts.values()].filter((p) => p.part === part).reduce((s, p) => s + p.seconds, 0);
  return {
    loadGenerator: (own.user + own.system) / 1e6,
    server: sum('server'),
    database: sum('database'),
    processes: parts,
  };
}

/**
 * CPU seconds each part spent between two samples, process by process: a process that ended in
 * between is left out (what it spent since the first sample is unknown; subtracting all it had
 * spent made a part's figure negative), and one that started in between counts in full.
 */
function spent(before: CpuSample, after: CpuSample) {
  const out = { loadGenerator: after.loadGenerator - before.loadGenerator, server: 0, database: 0 };
  for (const [pid, p] of after.processes) {
    const was = before.processes.get(pid);
    out[p.part] += p.seconds - (was?.part === p.part ? was.seconds : 0);
  }
  return out;
}

/** Milliseconds of CPU per call of each part between two samples, and how many CPUs were busy on average. */
export function cpuPerCall(before: CpuSample, after: CpuSample, calls: number, seconds: number) {
  const used = spent(before, after);
  const part = (k: keyof typeof used) => used[k];
  const ms = (k: keyof typeof used) => Math.round((part(k) * 1000 * 100) / calls) / 100;
  return {
    load_generator_ms: ms('loadGenerator'),
    server_ms: ms('server'),
    database_ms: ms('database'),
    cpus_busy: Math.round(((part('loadGenerator') + part('server') + part('database')) / seconds) * 100) / 100,
  };
}

/**
 * CPU seconds so far of each named part: its processes and their descendants (a host's server
 * processes, a PostgreSQL server's backends), by process, so that `partsSpent` can leave out those
 * that ended between two samples. Undefined off Linux.
 */
export function sampleParts(parts: Record<string, number[]>): Map<string, Map<number, number>> | undefined {
  const all = processes();
  if (!all.length) return undefined;
  const out = new Map<string, Map<number, number>>();
  for (const [name, roots] of Object.entries(parts)) {
    const tree = new Set(roots);
    for (let grown = true; grown;) {
      grown = false;
      for (const p of all)
        if (!tree.has(p.pid) && tree.has(p.ppid)) {
          tree.add(p.pid);
          grown = true;
        }
    }
    out.set(name, new Map(all.filter((p) => tree.has(p.pid)).map((p) => [p.pid, p.seconds])));
  }
  return out;
}

/** CPU seconds each part spent between two samples of sampleParts. */
export function partsSpent(before: Map<string, Map<number, number>>, after: Map<string, Map<number, number>>) {
  const out: Record<string, number> = {};
  for (const [name, procs] of after) {
    const was = before.get(name) ?? new Map<number, number>();
    out[name] = [...procs].reduce((sum, [pid, s]) => sum + s - (was.get(pid) ?? 0), 0);
  }
  return out;
}
