import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../../server/index';
import { newUser } from './clients';

export interface Trader {
  client: SupabaseClient;
  id: string;
}

let tokenCounter = 0;

/** A fresh token with no book, so a test sees only its own orders. */
export async function freshToken(backend: Backend, supply = 10_000, issuePrice = 10): Promise<string> {
  const n = `t${Date.now().toString(36)}${tokenCounter++}`;
  const [row] = await backend.db.query<{ id: string }>(
    `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
     values ($1, $1, 'Test', 50, $2, $3) returning id`,
    [n, supply, issuePrice],
  );
  return row!.id;
}

/**
 * A fresh token whose offering of `supply` tokens at `price` is open for bids, as an approval opens
 * one (offerings.sql): the issuance account holds them, trading waits for the close. `cap` replaces
 * the settings' cap per account; `owner` is the token's person, who receives the proceeds.
 */
export async function offeringToken(
  backend: Backend,
  { supply = 1000, price = 10, cap, owner }: { supply?: number; price?: number; cap?: number; owner?: string } = {},
): Promise<string> {
  const token = await freshToken(backend, supply * 2, price);
  if (owner) await backend.db.query('update tokens set owner_id = $1 where id = $2', [owner, token]);
  await backend.db.query('select private.issue_tokens($1, private.issuance_account(), $2)', [token, supply]);
  await backend.db.query('select private.open_offering($1, $2, $3)', [token, supply, price]);
  if (cap) await backend.db.query('update offerings set account_cap = $1 where token_id = $2', [cap, token]);
  return token;
}

/** As if the token's offering window had passed: then the scheduler's close, until it has closed. */
export async function closeOffering(backend: Backend, token: string): Promise<void> {
  await backend.db.query(
    `update offerings set opens_at = now() - interval '1 day', closes_at = now() - interval '1 second'
      where token_id = $1 and closed_at is null`,
    [token],
  );
  for (;;) {
    const [open] = await backend.db.query('select 1 from offerings where token_id = $1 and closed_at is null', [token]);
    if (!open) return;
    const [row] = await backend.db.query<{ closed: boolean }>('select private.close_next_offering() as closed');
    if (!row!.closed) throw new Error('the offering did not close');
  }
}

/** place_order as the order panel calls it, as `client`; resolves to supabase-js's answer. */
export function placeOrder(client: SupabaseClient, ...[token, side, type, amount, price = null]: OrderArgs) {
  return client.rpc('place_order', { p_token: token, p_side: side, p_type: type, p_amount: amount, p_price: price });
}
/** An order's fields, in place_order's order: token, side, type, amount and (for a limit) price. */
export type OrderArgs = [
  token: string,
  side: 'buy' | 'sell',
  type: 'market' | 'limit',
  amount: number,
  price?: number | null,
];

/** A signed-up user funded through the ledger (deposits are not yet a user feature). */
export async function trader(
  backend: Backend,
  opts: { cash?: number; token?: string; tokens?: number } = {},
): Promise<Trader> {
  const user = await newUser(backend.url, 'trader');
  if (opts.cash) await backend.db.query('select private.record_deposit($1, $2)', [user.id, opts.cash]);
  if (opts.token && opts.tokens)
    await backend.db.query('select private.issue_tokens($1, $2, $3)', [opts.token, user.id, opts.tokens]);
  return { client: user.client, id: user.id };
}

export async function cash(backend: Backend, userId: string): Promise<{ available: number; reserved: number }> {
  const [row] = await backend.db.query<{ available: string; reserved: string }>(
    'select available, reserved from cash_accounts where user_id = $1',
    [userId],
  );
  return { available: Number(row!.available), reserved: Number(row!.reserved) };
}

export async function holding(
  backend: Backend,
  userId: string,
  token: string,
): Promise<{ amount: number; reserved: number }> {
  const [row] = await backend.db.query<{ amount: string; reserved: string }>(
    'select amount, reserved from holdings where user_id = $1 and token_id = $2',
    [userId, token],
  );
  return { amount: Number(row?.amount ?? 0), reserved: Number(row?.reserved ?? 0) };
}

export async function book(
  backend: Backend,
  token: string,
): Promise<{ side: string; price: number; amount: number }[]> {
  const rows = await backend.db.query<{ side: string; price: string; amount: string }>(
    'select side, price, amount from order_book where token_id = $1 order by side, price',
    [token],
  );
  return rows.map((r) => ({ side: r.side, price: Number(r.price), amount: Number(r.amount) }));
}

/** The exchange-wide invariants; returns a list of violations (empty when all hold). */
export async function invariantViolations(backend: Backend): Promise<string[]> {
  const q = (sql: string) => backend.db.query<Record<string, string>>(sql);
  const problems: string[] = [];
  // What the scheduler does within seconds: run the stops a busy trade left waiting.
  await q('select private.run_due_stops()');
  const [gap] = await q(`select
    (select coalesce(sum(available + reserved + pending_withdrawal), 0) from cash_accounts)
    + (select coalesce(sum(buyer_fee + seller_fee - creator_share), 0) from trades)
    - (select coalesce(sum(case type when 'deposit' then amount else -amount end), 0) from wallet_transactions where status = 'completed') as gap`);
  if (Number(gap!.gap) !== 0) problems.push(`cash does not balance: off by ${gap!.gap}`);
  // The person's share of a trade's fees goes to the token's person (the table holds it within the fees).
  for (const r of await q(
    `select t.id from trades t join tokens k on k.id = t.token_id where t.creator_id is distinct from k.owner_id`,
  )) {
    problems.push(`trade ${r.id}'s fee share is not the token's person's`);
  }
  for (const r of await q(`select c.user_id from cash_accounts c where c.pending_withdrawal <>
      (select coalesce(sum(w.amount), 0) from wallet_transactions w
        where w.user_id = c.user_id and w.type = 'withdrawal' and w.status in ('pending', 'processing'))`)) {
    problems.push(`funds held for withdrawals of ${r.user_id} do not match its pending withdrawals`);
  }
  for (const r of await q(
    `select t.username from tokens t where (select coalesce(sum(amount), 0) from holdings h where h.token_id = t.id) > t.total_supply`,
  )) {
    problems.push(`more ${r.username} tokens held than issued`);
  }
  for (const r of await q(`select c.user_id from cash_accounts c where c.reserved <>
      (select coalesce(sum(o.reserved), 0) from orders o where o.user_id = c.user_id and o.status in ('open', 'pending') and o.side = 'buy')
      + (select coalesce(sum(b.reserved), 0) from offering_bids b join offerings f on f.id = b.offering_id
          where b.user_id = c.user_id and f.closed_at is null)`)) {
    problems.push(`reserved cash of ${r.user_id} does not match its open buy orders, stops and offering bids`);
  }
  // A closed offering holds nothing back, sold what its bids were allocated, each at its one price.
  for (const r of await q(`select f.id from offerings f where f.closed_at is not null and (
        f.sold <> (select coalesce(sum(b.allocated), 0) from offering_bids b where b.offering_id = f.id)
        or exists (select 1 from offering_bids b where b.offering_id = f.id and (b.reserved <> 0 or b.allocated > b.amount))
        or f.sold <> (select coalesce(sum(t.amount), 0) from trades t
                       where t.token_id = f.token_id and t.seller_id = private.issuance_account() and t.price = f.clearing_price
                         and t.created_at = f.closed_at))`)) {
    problems.push(`offering ${r.id} did not sell what it allocated`);
  }
  for (const r of await q(`select h.user_id, h.token_id from holdings h where h.reserved <>
      (select coalesce(sum(o.amount - o.filled), 0) from orders o where o.user_id = h.user_id and o.token_id = h.token_id and o.side = 'sell'
         and (o.status = 'open' or (o.status = 'pending' and o.oco_with is null)))`)) {
    problems.push(`reserved tokens of ${r.user_id} in ${r.token_id} do not match its open sell orders and stops`);
  }
  // A waiting stop never has a trigger the last price has reached (it would have run), unless its
  // token is in a volatility auction (stops wait for its price); a pair's waiting stop sells no
  // more than its take-profit has left.
  for (const r of await q(`select o.id from orders o
      join lateral (select coalesce((select price from trades where token_id = o.token_id order by created_at desc, id desc limit 1),
                                    (select issue_price from tokens where id = o.token_id)) as last) p on true
      where o.status = 'pending' and ((o.side = 'buy' and o.stop_price <= p.last) or (o.side = 'sell' and o.stop_price >= p.last))
        and not exists (select 1 from tokens t where t.id = o.token_id and t.auction_until is not null)`)) {
    problems.push(`stop ${r.id} waits though the last price has reached its trigger`);
  }
  for (const r of await q(`select s.id from orders s join orders l on l.id = s.oco_with
      where s.status = 'pending' and s.stop_price is not null and (l.status <> 'open' or s.amount <> l.amount - l.filled)`)) {
    problems.push(`stop ${r.id} of a pair does not follow its take-profit`);
  }
  // A book is never crossed, but in a volatility auction's call period (auctions.sql).
  for (const r of await q(`select b.token_id from order_book b join tokens t on t.id = b.token_id and t.auction_until is null
      group by b.token_id having max(b.price) filter (where b.side = 'buy') >= min(b.price) filter (where b.side = 'sell')`)) {
    problems.push(`the book of ${r.token_id} is crossed`);
  }
  for (const r of await q(`select id from trades where created_at > now()`)) {
    problems.push(`trade ${r.id} is dated in the future`);
  }
  // Fees: a trade without orders pays the fee of its value; an order pays, over its fills, the fee of
  // its cumulative value (one rounding per order, so never more than a resting buy reserved).
  for (const r of await q(`select id from trades where (buy_order_id is null and buyer_fee <> round(round(price * amount, 2) * fee_bps / 10000.0, 2))
      or (sell_order_id is null and seller_fee <> round(round(price * amount, 2) * fee_bps / 10000.0, 2))`)) {
    problems.push(`trade ${r.id} has a wrong fee`);
  }
  for (const r of await q(`select o.id from orders o
      join lateral (select coalesce(sum(round(t.price * t.amount, 2)), 0) as value,
                           coalesce(sum(case when o.side = 'buy' then t.buyer_fee else t.seller_fee end), 0) as fees,
                           min(r.bps) as bps, max(r.bps) as max_bps
                    from trades t
                    -- The rate the order paid on each fill: the taker's, or the maker's where it rested.
                    cross join lateral (select case when t.taker_side = o.side then t.fee_bps else coalesce(t.maker_fee_bps, t.fee_bps) end as bps) r
                    where (o.side = 'buy' and t.buy_order_id = o.id) or (o.side = 'sell' and t.sell_order_id = o.id)) f on true
      where o.filled_value <> f.value or o.fees_paid <> f.fees
         or (f.bps = f.max_bps and f.fees <> round(f.value * f.bps / 10000.0, 2))`)) {
    problems.push(`order ${r.id}'s fees do not match its fills`);
  }
  // A founder's locked tokens are what has not vested, once the scheduler has released what has.
  await q('select private.release_vesting()');
  for (const r of await q(`select g.token_id from vesting_grants g join holdings h on h.token_id = g.token_id and h.user_id = g.user_id
      where h.locked <> least(g.total - private.vested(g, now()), h.amount - h.reserved)`)) {
    problems.push(`the founder of ${r.token_id} has locked tokens that have vested`);
  }
  // An Auto-Invest run's record is its orders: each buy's order is its owner's, and filled what the
  // run says; the run spent what its buys did.
  for (const r of await q(`select r.id from invest_runs r
      where r.spent <> (select coalesce(sum(b.value + b.fee), 0) from invest_run_buys b where b.run_id = r.id)
         or exists (select 1 from invest_run_buys b join orders o on o.id = b.order_id
                     where b.run_id = r.id and (o.user_id <> r.user_id or o.side <> 'buy' or o.filled <> b.tokens
                                                or o.filled_value <> b.value or o.fees_paid <> b.fee))`)) {
    problems.push(`Auto-Invest run ${r.id} does not match its orders`);
  }
  // The market's maintained figures equal their definition, recomputed from trades and holdings
  // (after the scheduled slide, and in its transaction, so both see one now()).
  const stale = await backend.db.transaction(async (tx) => {
    await tx.query('select private.slide_token_stats()');
    return tx.query<{
      username: string;
    }>(`select t.username from tokens t join private.token_stats s on s.token_id = t.id
      left join lateral (select price from trades where token_id = t.id order by created_at desc, id desc limit 1) last on true
      left join lateral (select price from trades where token_id = t.id and created_at <= now() - interval '24 hours'
                         order by created_at desc, id desc limit 1) day_ago on true
      left join lateral (select price from trades where token_id = t.id order by created_at, id limit 1) first on true
      cross join lateral (select coalesce(sum(round(price * amount, 2)), 0) as value from trades
                          where token_id = t.id and created_at > now() - interval '24 hours') volume
      cross join lateral (select count(*) as n from holdings h
                          where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()) held
      cross join lateral (select coalesce(last.price, t.issue_price) as price,
                                 coalesce(day_ago.price, first.price, t.issue_price) as base) p
      where s.price <> p.price or s.market_cap <> round(p.price * t.total_supply, 2) or s.volume_24h <> volume.value
         or s.holders <> held.n or s.change_24h <> round((p.price - p.base) / p.base * 100, 2)`);
  });
  for (const r of stale) problems.push(`the market figures of ${r.username} are not those of its trades and holdings`);
  // The market's summary, from the kept figures, is what the trades and holdings say (after the
  // slide, which also folds the traders' changes, in one transaction as above).
  const summary = await backend.db.transaction(async (tx) => {
    await tx.query('select private.slide_token_stats()');
    return tx.query<{ total_traders: string; volume_24h: string }>(`select s.total_traders, s.volume_24h
      from market_summary s
      where s.total_traders <> (select count(distinct user_id) from holdings where amount > 0 and user_id <> private.issuance_account())
         or s.volume_24h <> (select coalesce(sum(round(price * amount, 2)), 0) from trades where created_at > now() - interval '24 hours')
         or s.total_market_cap <> (select coalesce(sum(market_cap), 0) from private.token_stats)`);
  });
  for (const r of summary)
    problems.push(
      `the market's summary (${r.total_traders} traders, ${r.volume_24h} volume) is not that of its tokens, holdings and trades`,
    );
  for (const r of await q(`select coalesce(k.user_id, h.user_id) as user_id from private.tokens_held k
      full join (select user_id, count(*) as tokens from holdings where amount > 0 and user_id <> private.issuance_account()
                 group by user_id) h on h.user_id = k.user_id
      where k.tokens is distinct from h.tokens`)) {
    problems.push(`the count of tokens ${r.user_id} holds is not that of their holdings`);
  }
  return problems;
}

/**
 * A saved bank account the trader can withdraw to now: added as the user adds one, then its day's
 * hold over (as if the day had passed).
 */
export async function bankAccount(
  backend: Backend,
  t: Trader,
  label = 'Checking',
  number = '12345678',
): Promise<string> {
  const { data, error } = await t.client.rpc('add_payout_destination', { p_label: label, p_account_number: number });
  if (error) throw new Error(error.message);
  await backend.db.query('update payout_destinations set usable_from = now() where id = $1', [data]);
  return data as string;
}

/** A new API key of the trader's (its session has just signed in, as making one asks). */
export async function makeKey(
  t: Trader,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; key: string }> {
  const { data, error } = await t.client.rpc('create_api_key', {
    p_name: `bot ${scopes.join('+')}`,
    p_scopes: scopes,
    ...extra,
  });
  if (error) throw new Error(error.message);
  return data as { id: string; key: string };
}
