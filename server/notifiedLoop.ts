import type { Database } from './db/database';

/**
 * The local server's workers' loop: runs `work` when `channel` is notified and every `pollMs` (a
 * notice can be missed: a lost connection, a restart), never two at once. A notice that arrives
 * while it runs has it run once more after, so nothing sent meanwhile waits for the poll. A failure
 * is logged, and the next notice or poll tries again. `close` stops both and waits for the run.
 */
export async function notifiedLoop(
  db: Database,
  opts: { name: string; channel: string; pollMs: number; log?: (line: string) => void },
  work: (stopped: () => boolean) => Promise<void>,
) {
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  const isStopped = () => stopped;
  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await work(isStopped);
        } while (again && !stopped);
      } catch (error) {
        opts.log?.(`error ${opts.name}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        running = undefined;
      }
    })();
  };
  const unlisten = await db.listen(opts.channel, kick);
  const timer = setInterval(kick, opts.pollMs);
  kick();
  return {
    async close() {
      stopped = true;
      clearInterval(timer);
      await unlisten();
      await running;
    },
  };
}
