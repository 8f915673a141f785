/** @jest-environment node */
import { spawn } from 'node:child_process';
import { cpuPerCall, sampleCpu } from './cpu';

// The server's CPU is its process and every descendant (the cluster forks server processes). The
// child spins until it has spent 400 ms of CPU, not of the clock: on a busy machine a clock's
// 400 ms can hold much less CPU, and the test would measure the machine, not the sampling.
const BUSY = `const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }; while (cpu() < 400); console.log('done'); setInterval(() => {}, 1000);`;
const PARENT = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(BUSY)}], { stdio: 'inherit' }); setInterval(() => {}, 1000);`;

(process.platform === 'linux' ? it : it.skip)(
  "charges a server's child process to the server, not to the load generator",
  async () => {
    const server = spawn(process.execPath, ['-e', PARENT], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const own = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e6;
      };
      const ownBefore = own();
      const before = sampleCpu(server.pid)!;
      await new Promise<void>((resolve) =>
        server.stdout.on('data', (d: Buffer) => d.toString().includes('done') && resolve()),
      );
      const after = sampleCpu(server.pid)!;
      const ownAfter = own();
      expect(after.server - before.server).toBeGreaterThanOrEqual(0.3);
      // The load generator's figure is this process's own CPU, whatever else the machine runs: the
      // child's 0.4 s is not in it.
      expect(Math.abs(after.loadGenerator - before.loadGenerator - (ownAfter - ownBefore))).toBeLessThan(0.1);
      const perCall = cpuPerCall(before, after, 2, 1);
      expect(perCall.server_ms).toBeGreaterThanOrEqual(150);
      expect(perCall.cpus_busy).toBeGreaterThanOrEqual(0.3);
    } finally {
      process.kill(-server.pid!, 'SIGKILL');
    }
  },
);

it('leaves out a process that ended between two samples, and counts one that started in full', () => {
  const sample = (loadGenerator: number, processes: [number, 'server' | 'database', number][]) => ({
    loadGenerator,
    server: 0,
    database: 0,
    processes: new Map(processes.map(([pid, part, seconds]) => [pid, { part, seconds }])),
  });
  // A PostgreSQL backend with 5 s behind it ends; another starts and spends 0.2 s; the server 0.1 s.
  const before = sample(1, [
    [10, 'database', 5],
    [20, 'server', 3],
  ]);
  const after = sample(1.3, [
    [11, 'database', 0.2],
    [20, 'server', 3.1],
  ]);
  expect(cpuPerCall(before, after, 100, 1)).toEqual({
    load_generator_ms: 3,
    server_ms: 1,
    database_ms: 2,
    cpus_busy: 0.6,
  });
});
