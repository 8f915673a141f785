import { performance } from 'node:perf_hooks';
import { newUser, signedIn } from '../../integration/harness/clients';
import { throwAwayStorage } from '../../integration/harness/backends';
import { stopServer } from '../../integration/harness/process';
import { DEMO_ACCOUNTS } from '../../server/demo';
import { httpFetch } from '../lib/httpFetch';
import { benchServer, latencySummary, type Engine } from './common';

export const SIGN_INS = 50;

/** A signed-in reader's market page, read over and over until `done`: its latencies. */
export async function readUntil(read: () => PromiseLike<{ error: unknown }>, done: () => boolean) {
  const samples: number[] = [];
  while (!done()) {
    const t = performance.now();
    const { error } = await read();
    if (error) throw new Error(JSON.stringify(error));
    samples.push(performance.now() - t);
  }
  return latencySummary(samples);
}

export const forMs = (ms: number) => {
  const end = performance.now() + ms;
  return () => performance.now() > end;
};

/**
 * Other requests while SIGN_INS users sign in at once (each a bcrypt comparison, tens of ms of CPU):
 * one signed-in client reads a market page over and over, alone and then during the sign-ins.
 */
export async function benchSignInStorm(engine: Engine) {
  const store = await throwAwayStorage(engine, 'repex_bench_signin');
  const { server, url } = await benchServer(store);
  const users = await Promise.all(Array.from({ length: SIGN_INS }, () => newUser(url, 'storm')));
  const reader = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
  const read = () => reader.from('market_tokens').select('id, name, price').order('market_cap').limit(25);
  const quiet = await readUntil(read, forMs(2000));
  let signingIn = true;
  const started = performance.now();
  const [during] = await Promise.all([
    readUntil(read, () => !signingIn),
    Promise.all(users.map((u) => signedIn(url, { email: u.email, password: 'password-123' }))).finally(() => {
      signingIn = false;
    }),
  ]);
  const signInsMs = Math.round(performance.now() - started);
  await stopServer(server);
  await store.cleanup();
  return {
    sign_ins: SIGN_INS,
    sign_ins_ms: signInsMs,
    other_requests_alone_ms: quiet,
    other_requests_during_ms: during,
  };
}
