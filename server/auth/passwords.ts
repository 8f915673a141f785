import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PASSWORD_MAX_LENGTH } from './passwordPolicy';

/** bcrypt's cost, as GoTrue's; hashes stay compatible with GoTrue and pgcrypto's crypt(). */
export const BCRYPT_COST = 10;

/**
 * Compared against when the email is unknown, so timing does not reveal which emails exist: a
 * hash at BCRYPT_COST (passwords.test.ts checks), written out rather than computed, since computing
 * it would block every server process's start-up for a hash's time.
 */
export const DUMMY_HASH = '$2b$10$yOFXeToVYbaH7xJxPaejnuqUV0rJAEwp120m1xQtcyOPKtNXoMJgG';

const WORKER_FILE = path.join(__dirname, 'passwordWorker.mjs');

type Pending = { resolve: (v: string | boolean) => void; reject: (e: Error) => void };

/**
 * Password hashing in a small pool of worker threads, so fifty sign-ins at once do not hold up
 * every other request: the event loop only posts messages.
 */
export class PasswordHasher {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private turn = 0;
  private dummy: Promise<string> | undefined;

  /**
   * `cost`: bcrypt's for new hashes (a hash keeps its own cost, so an existing one compares as it
   * was made). Only the test suites lower it: they make thousands of accounts, and at BCRYPT_COST
   * each account's hash and first sign-in took a quarter of the suites' CPU.
   */
  constructor(
    private readonly cost = BCRYPT_COST,
    size = Math.max(1, Math.min(4, os.availableParallelism() - 1)),
  ) {
    this.workers = Array.from({ length: size }, () => {
      const worker = new Worker(WORKER_FILE);
      worker.on('message', ({ id, result, error }: { id: number; result?: string | boolean; error?: string }) => {
        const p = this.pending.get(id);
        this.pending.delete(id);
        if (error !== undefined) p?.reject(new Error(error));
        else p?.resolve(result!);
      });
      worker.unref(); // never keeps the process alive
      return worker;
    });
  }

  private run(message: Record<string, unknown>): Promise<string | boolean> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[this.turn++ % this.workers.length]!.postMessage({ id, ...message });
    });
  }

  hash(password: string): Promise<string> {
    return this.run({ op: 'hash', password, cost: this.cost }) as Promise<string>;
  }

  /**
   * Whether `password` is the one hashed. One longer than bcrypt reads is no one's (no password
   * of more than 72 bytes is ever set), though its first 72 bytes may match: it is compared all
   * the same, so that the answer takes as long.
   */
  async compare(password: string, hash: string): Promise<boolean> {
    const same = (await this.run({ op: 'compare', password, hash })) as boolean;
    return same && Buffer.byteLength(password, 'utf8') <= PASSWORD_MAX_LENGTH;
  }

  /**
   * An account's password check when there is no account (or it has no password): false, after
   * as long as a real check at this hasher's cost takes.
   */
  async compareNone(password: string): Promise<false> {
    this.dummy ??= this.cost === BCRYPT_COST ? Promise.resolve(DUMMY_HASH) : this.hash('not-a-real-password');
    await this.compare(password, await this.dummy);
    return false;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
