import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startBackend } from '../../server/index';
import { signedIn } from '../../integration/harness/clients';
import { freshToken, trader } from '../../integration/harness/market';
import { throwAwayStorage } from '../../integration/harness/backends';
import { stopServer } from '../../integration/harness/process';
import { DEMO_ANON_KEY, DEMO_JWT_SECRET } from '../../server/demo';
import { NO_RATE_LIMITS } from '../../server/http/rateLimit';
import { httpFetch } from '../lib/httpFetch';
import {
  benchBackend,
  CONCURRENCY,
  ORDERS,
  TRADERS,
  benchServer,
  bookOf,
  load,
  median,
  orderStream,
  round2,
  traderOf,
  type Engine,
  type Order,
  type Run,
  type Transport,
} from './common';

export const BOOKS = 32;
/** The share of stops in the mixed run. */
export const STOP_SHARE = 0.2;
/** Past orders under the last one-client run. */
export const HISTORY = 100_000;
/**
 * Past orders under every other run. A live exchange's orders table is never empty; one analyzed
 * empty makes every connection cache, for its trading statements, generic plans that read orders
 * by sequential scan, kept until the table is next analyzed (the server's vacuum job, or
 * autovacuum): the runs would measure that transient, not a running exchange.
 */
const PAST_ORDERS = 10_000;
/** Untimed orders a freshly started server takes before the order runs. */
const WARM_UP_ORDERS = 2_000;
/**
 * The trivial rpc against /health: alternated rounds of each, each long enough to read a rate and
 * a CPU share from (the CPU clock ticks every 10 ms), and the round with the middle rate; the
 * machine drifts between rounds by more than the server moves.
 */
export const RATE_ROUNDS = 3;
const RPC_CALLS = 6_000;
const HEALTH_CALLS = 18_000;

export interface Rates {
  processes: number;
  trivialRpcPerSecond: number;
  trivialRpcFetchPerSecond: number;
  healthPerSecond: number;
  trivialRpcCpu?: Run['cpu'];
  healthCpu?: Run['cpu'];
  /** The trivial rpc's rate over /health's, round by round. */
  ratios: number[];
}

/** Cancelled orders spread over every trader and token, as an exchange's history leaves them. */
const pastOrders = (n: number) => `
  insert into orders (user_id, token_id, side, type, price, amount, status)
  select u.ids[1 + g % array_length(u.ids, 1)], k.ids[1 + g % array_length(k.ids, 1)],
         case when g % 2 = 0 then 'buy' else 'sell' end, 'limit', 10, 1, 'cancelled'
  from generate_series(1, ${n}) g, (select array_agg(id) ids from profiles) u, (select array_agg(id) ids from tokens) k;`;

type Store = Awaited<ReturnType<typeof throwAwayStorage>>;
export interface Exchange {
  store: Store;
  tokens: string[];
  warmUpBook: string;
  emails: string[];
}

/** An exchange of BOOKS tokens and TRADERS rich traders over PAST_ORDERS past orders, analyzed. */
export async function prepareExchange(engine: Engine): Promise<Exchange> {
  const { store, backend: prepared } = await benchBackend(engine, 'repex_bench', { seed: false });
  const tokens: string[] = [];
  for (let b = 0; b < BOOKS; b++) tokens.push(await freshToken(prepared, 100_000_000));
  const warmUpBook = await freshToken(prepared, 100_000_000);
  const emails: string[] = [];
  for (let i = 0; i < TRADERS; i++) {
    const t = await trader(prepared, { cash: 10_000_000 });
    for (const token of [...tokens, warmUpBook])
      await prepared.db.query('select private.issue_tokens($1, $2, $3)', [token, t.id, 1_000_000]);
    emails.push((await t.client.auth.getUser()).data.user!.email!);
  }
  await prepared.db.exec(pastOrders(PAST_ORDERS));
  // As after any bulk load (and as autovacuum would soon): statistics for the plans the runs cache.
  await prepared.db.exec('analyze');
  await prepared.close();
  return { store, tokens, warmUpBook, emails };
}

/** place_order as the order panel calls it, order i of `stream` by its trader, on the book `book(i)`. */
export const placeWith =
  (clients: SupabaseClient[], stream: Order[], book: (i: number) => string) => async (_worker: number, i: number) => {
    const o = stream[i]!;
    const { error } = await clients[traderOf(i)]!.rpc('place_order', {
      p_token: book(i),
      p_side: o.side,
      p_type: o.type,
      p_amount: o.amount,
      ...(o.price ? { p_price: o.price } : {}),
      ...(o.stop ? { p_stop_price: o.stop } : {}),
    });
    return !error;
  };

/** The trivial rpc, the same over plain HTTP, and /health, in alternated rounds; the median round of each. */
async function measureRates(
  url: string,
  clients: SupabaseClient[],
  pid: number | undefined,
  processes: number,
): Promise<Rates> {
  // The same call with the same plain HTTP client as /health: the server's share, without supabase-js's.
  const headers = await Promise.all(
    clients.map(async (c) => ({
      apikey: DEMO_ANON_KEY,
      Authorization: `Bearer ${(await c.auth.getSession()).data.session!.access_token}`,
      'Content-Type': 'application/json',
    })),
  );
  const ok = async (res: Response) => (await res.arrayBuffer(), res.ok);
  const kinds = {
    trivial: () =>
      load(32, RPC_CALLS, async (w) => !(await clients[w]!.rpc('list_open_orders', { p_limit: 1 })).error, pid),
    trivialFetch: () =>
      load(32, RPC_CALLS, async (w) =>
        ok(
          await httpFetch(`${url}/rest/v1/rpc/list_open_orders`, {
            method: 'POST',
            headers: headers[w]!,
            body: '{"p_limit":1}',
          }),
        ),
      ),
    health: () => load(32, HEALTH_CALLS, async () => ok(await httpFetch(`${url}/health`)), pid),
  };
  const rounds: Record<keyof typeof kinds, Awaited<ReturnType<typeof load>>[]> = {
    trivial: [],
    trivialFetch: [],
    health: [],
  };
  for (let round = 0; round < RATE_ROUNDS; round++)
    for (const kind of Object.keys(kinds) as (keyof typeof kinds)[]) rounds[kind].push(await kinds[kind]());
  const [trivial, trivialFetch, health] = [rounds.trivial, rounds.trivialFetch, rounds.health].map(median);
  return {
    processes,
    trivialRpcPerSecond: trivial!.perSecond,
    trivialRpcFetchPerSecond: trivialFetch!.perSecond,
    healthPerSecond: health!.perSecond,
    trivialRpcCpu: trivial!.cpu,
    healthCpu: health!.cpu,
    ratios: rounds.trivial.map((t, i) => round2(t.perSecond / rounds.health[i]!.perSecond)),
  };
}

export type Plan = { books: number; clients: number; history?: number; transport?: Transport; stopShare?: number }[];

/** One server with `processes` processes over the exchange: its warm-up, then each run of the plan. */
export async function serve(
  ex: Exchange,
  processes: number,
  plan: Plan,
  rated: boolean,
  /** The Node the server runs on (this one by default). */
  node?: string,
): Promise<{ runs: Run[]; rates?: Rates }> {
  const { server, url } = await benchServer(
    ex.store,
    {
      SEED: 'false',
      LOG_REQUESTS: 'false',
      SERVER_PROCESSES: String(processes),
    },
    node,
  );
  const signIn = (transport: Transport) =>
    Promise.all(
      ex.emails.map((email) =>
        signedIn(url, { email, password: 'password-123' }, transport === 'http' ? httpFetch : undefined),
      ),
    );
  const clients = await signIn('http');
  const nodeFetchClients = plan.some((p) => p.transport === 'node-fetch') ? await signIn('node-fetch') : [];
  // Each trader's bot: a trade key made by its just-signed-in session (docs/api.md).
  const keyClients = plan.some((p) => p.transport === 'api-key')
    ? await Promise.all(
        clients.map(async (c) => {
          const { data, error } = await c.rpc('create_api_key', { p_name: 'bench', p_scopes: ['read', 'trade'] });
          if (error) throw new Error(error.message);
          return createClient(url, DEMO_ANON_KEY, {
            accessToken: () => Promise.resolve(data.key),
            global: { fetch: httpFetch },
          });
        }),
      )
    : [];
  // A running exchange's server is warm: untimed orders on a book of their own first, so that V8
  // has compiled the server's code and every pooled connection has planned the trading statements.
  const warmUp = orderStream(WARM_UP_ORDERS, 0);
  await load(
    32,
    warmUp.length,
    placeWith(clients, warmUp, () => ex.warmUpBook),
  );
  const runs: Run[] = [];
  for (const { books, clients: concurrency, history = PAST_ORDERS, transport = 'http', stopShare = 0 } of plan) {
    const stream = orderStream(ORDERS, concurrency * books, stopShare);
    const via = transport === 'http' ? clients : transport === 'api-key' ? keyClients : nodeFetchClients;
    const r = await load(
      concurrency,
      stream.length,
      placeWith(via, stream, (i) => ex.tokens[bookOf(i, books)]!),
      server.pid,
    );
    runs.push({ transport, stopShare, books, clients: concurrency, processes, history, orders: stream.length, ...r });
  }
  const rates = rated ? await measureRates(url, clients, server.pid, processes) : undefined;
  await stopServer(server);
  return { runs, rates };
}

/**
 * Orders over HTTP on one engine: on one hot book and spread over 32 books, at 1, 8 and 32 clients;
 * a trivial rpc and /health at 32 clients; on PostgreSQL, the 32-client runs again with 2 server
 * processes; and one client again over a history of HISTORY past orders.
 */
export async function benchOrders(engine: Engine): Promise<{ runs: Run[]; rates: Rates[] }> {
  const ex = await prepareExchange(engine);
  const results = [
    await serve(
      ex,
      1,
      [
        ...[1, BOOKS].flatMap((books) => CONCURRENCY.map((clients) => ({ books, clients }))),
        { books: BOOKS, clients: 32, transport: 'node-fetch' },
        { books: BOOKS, clients: 32, transport: 'api-key' },
        { books: BOOKS, clients: 32 },
        { books: BOOKS, clients: 32, stopShare: STOP_SHARE },
      ],
      true,
    ),
  ];
  if (engine === 'postgres')
    results.push(
      await serve(
        ex,
        2,
        [
          { books: 1, clients: 32 },
          { books: BOOKS, clients: 32 },
        ],
        true,
      ),
    );
  // A live exchange keeps every order it took: a cost growing with the history shows here.
  const again = await startBackend({
    port: 0,
    seed: false,
    jwtSecret: DEMO_JWT_SECRET,
    rateLimits: NO_RATE_LIMITS,
    ...ex.store.options,
  });
  await again.db.exec(`${pastOrders(HISTORY - PAST_ORDERS)} analyze;`);
  await again.close();
  results.push(await serve(ex, 1, [{ books: 1, clients: 1, history: HISTORY }], false));
  await ex.store.cleanup();
  return { runs: results.flatMap((r) => r.runs), rates: results.flatMap((r) => (r.rates ? [r.rates] : [])) };
}
