-- Sample data of the specification: a fresh install looks like it, then changes as people trade.
-- Every cash and token movement goes through the ledger functions, so the invariants hold.
--
-- Accounts (password sign-in):  demo@repx.dev / demo-trader-2026   admin@repx.dev / admin-repx-2026
-- The six sample people are accounts too; the demo user is one of them (Alex Rivera) and owns a token.

do $seed$
declare
  people constant jsonb := '[
    {"key":"sarah","email":"sarah.chen@people.repx.dev","name":"Sarah Chen","username":"sarahchen","category":"Tech Influencer","score":92.4,"price":40.00,"close":45.20,"verified":true,"followers":284000,"following":612,"engagement":6.8,"location":"San Francisco, CA","bio":"Tech educator breaking down AI, startups and the future of work for 280K followers."},
    {"key":"marcus","email":"marcus.johnson@people.repx.dev","name":"Marcus Johnson","username":"marcusj","category":"Business Leader","score":88.1,"price":74.10,"close":78.35,"verified":true,"followers":156000,"following":340,"engagement":4.2,"location":"New York, NY","bio":"Founder and CEO. Writing about leadership, operations and building durable companies."},
    {"key":"emma","email":"emma.rodriguez@people.repx.dev","name":"Emma Rodriguez","username":"emmafitness","category":"Fitness Coach","score":84.7,"price":33.60,"close":31.85,"verified":true,"followers":412000,"following":980,"engagement":8.9,"location":"Miami, FL","bio":"Strength coach. Daily training plans, nutrition science and no-nonsense motivation."},
    {"key":"alex","email":"demo@repx.dev","name":"Alex Rivera","username":"alexrivera","category":"Content Creator","score":81.5,"price":22.40,"close":24.75,"verified":true,"followers":98500,"following":1204,"engagement":7.4,"location":"Austin, TX","bio":"Filmmaker and content creator. Building a community around storytelling and the creator economy."},
    {"key":"david","email":"david.kim@people.repx.dev","name":"David Kim","username":"davidcrypto","category":"Crypto Expert","score":79.3,"price":63.20,"close":60.90,"verified":false,"followers":201000,"following":455,"engagement":5.1,"location":"Seoul, South Korea","bio":"On-chain analyst. Market structure, DeFi research and risk management."},
    {"key":"priya","email":"priya.patel@people.repx.dev","name":"Priya Patel","username":"priyadesigns","category":"Designer","score":86.2,"price":36.80,"close":38.40,"verified":true,"followers":133000,"following":720,"engagement":6.1,"location":"London, UK","bio":"Product designer. Design systems, accessibility and the craft of interfaces."}
  ]';
  p jsonb;
  ids jsonb := '{}';
  tok jsonb := '{}';
  uid uuid;
  tid uuid;
  admin_id uuid;
  demo uuid;
  sarah_token uuid;
  h integer;
  price numeric;
  buyer uuid;
  keys text[] := array['sarah','marcus','emma','alex','david','priya'];
  traders text[];
  seller_key text;
  i integer;
  step numeric;
  bank uuid;
begin
  -- The sample history predates the creators' fee share: its trades credit none, as the migration
  -- that added the share left earlier trades (so the demo user's history holds their own decisions).
  update public.exchange_settings set creator_fee_share_bps = 0;
  -- Accounts. The six people who are not the demo user cannot sign in (no password).
  for p in select * from jsonb_array_elements(people) loop
    insert into auth.users (email, encrypted_password, email_confirmed_at, raw_user_meta_data, created_at)
    values (p->>'email',
            case when p->>'key' = 'alex' then extensions.crypt('demo-trader-2026', extensions.gen_salt('bf', 10)) end,
            now() - interval '400 days',
            jsonb_build_object('username', p->>'username', 'full_name', p->>'name'),
            now() - interval '400 days')
    returning id into uid;
    ids := ids || jsonb_build_object(p->>'key', uid);
    update public.profiles
       set bio = p->>'bio', location = p->>'location', verified = (p->>'verified')::boolean,
           followers = (p->>'followers')::int, following = (p->>'following')::int,
           engagement_rate = (p->>'engagement')::numeric, created_at = now() - interval '400 days'
     where id = uid;
    insert into public.tokens (owner_id, name, username, category, reputation_score, total_supply, issue_price, verified, created_at)
    values (uid, p->>'name', p->>'username', p->>'category', (p->>'score')::numeric, 1000000, (p->>'price')::numeric,
            (p->>'verified')::boolean, now() - interval '400 days')
    returning id into tid;
    tok := tok || jsonb_build_object(p->>'key', tid);
    -- A person receives 60% of their token; 40% stays unissued. The sample people other than the
    -- demo user are the market's first traders and get working capital.
    perform private.issue_tokens(tid, uid, 600000);
    if p->>'key' <> 'alex' then perform private.record_deposit(uid, 500000, now() - interval '400 days'); end if;
  end loop;

  insert into auth.users (email, encrypted_password, email_confirmed_at, raw_user_meta_data, created_at)
  values ('admin@repx.dev', extensions.crypt('admin-repx-2026', extensions.gen_salt('bf', 10)), now() - interval '420 days',
          '{"username":"repx_admin","full_name":"RepX Admin"}', now() - interval '420 days')
  returning id into admin_id;
  update public.profiles set role = 'admin', bio = 'Exchange operations.' where id = admin_id;

  demo := (ids->>'alex')::uuid;
  sarah_token := (tok->>'sarah')::uuid;
  update public.profiles set created_at = '2024-03-15' where id = demo;
  update public.profiles set created_at = now() - interval '420 days' where id = admin_id;
  -- Marcus was an early backer of Alex Rivera's token: the demo user's token trades through him,
  -- so the demo user's own history holds only their own decisions.
  perform private.issue_tokens((tok->>'alex')::uuid, (ids->>'marcus')::uuid, 50000);

  -- Hourly trades over the last day for every token: the price walks from its open to its close
  -- (Sarah Chen's from 40 up). The owner (Marcus for the demo user's token) sells to the other
  -- sample people in turn.
  for i in 1 .. array_length(keys, 1) loop
    p := (select x from jsonb_array_elements(people) x where x->>'key' = keys[i]);
    seller_key := case when keys[i] = 'alex' then 'marcus' else keys[i] end;
    step := ((p->>'close')::numeric - (p->>'price')::numeric) / 24;
    for h in 0 .. 24 loop
      price := round((p->>'price')::numeric + step * h + case when h % 3 = 1 and h < 24 then -step / 2 else 0 end, 2);
      traders := array(select k from unnest(keys) k where k not in (seller_key, 'alex'));
      buyer := (ids->>traders[1 + h % array_length(traders, 1)])::uuid;
      perform private.settle_trade((tok->>keys[i])::uuid, buyer, (ids->>seller_key)::uuid, price, 40 + ((h * 37 + i * 11) % 160),
        case when h % 2 = 0 then 'buy' else 'sell' end, null, null, 0, false,
        -- always in the past: the last one a few minutes ago, the first just over a day ago
        now() - make_interval(hours => 24 - h) - make_interval(mins => 2 + (h * 7) % 50));
    end loop;
  end loop;

  -- The demo user's own history: deposits, buys, one sell, and a withdrawal that leaves exactly
  -- the spec's wallet balance of 2,450 dollars and 500 tokens of Sarah Chen.
  perform private.record_deposit(demo, 25000, now() - interval '60 days');
  perform private.settle_trade(sarah_token, demo, (ids->>'sarah')::uuid, 38.50, 300, 'buy', null, null, 0, false, now() - interval '30 days');
  perform private.record_deposit(demo, 15000, now() - interval '21 days');
  perform private.settle_trade(sarah_token, demo, (ids->>'sarah')::uuid, 41.00, 250, 'buy', null, null, 0, false, now() - interval '14 days');
  perform private.settle_trade((tok->>'marcus')::uuid, demo, (ids->>'marcus')::uuid, 72.00, 100, 'buy', null, null, 0, false, now() - interval '10 days');
  perform private.settle_trade((tok->>'emma')::uuid, demo, (ids->>'emma')::uuid, 34.50, 200, 'buy', null, null, 0, false, now() - interval '7 days');
  perform private.settle_trade(sarah_token, (ids->>'priya')::uuid, demo, 44.00, 50, 'sell', null, null, 0, false, now() - interval '3 days');
  perform private.record_withdrawal(demo, (select available - 2450 from public.cash_accounts where user_id = demo), now() - interval '2 days');
  -- Where that money came from and went, as the wallet names a real deposit's card and a
  -- withdrawal's bank account (the account saved long enough ago to receive withdrawals).
  insert into public.payout_destinations (user_id, label, account_last4, created_at, usable_from)
  values (demo, 'Checking', '0427', now() - interval '61 days', now() - interval '60 days')
  returning id into bank;
  update public.wallet_transactions set method = 'Card •••• 4242' where user_id = demo and type = 'deposit';
  update public.wallet_transactions set method = 'Checking •••• 0427', destination_id = bank
   where user_id = demo and type = 'withdrawal';

  -- Order books: five price levels a side around each token's last price.
  for i in 1 .. array_length(keys, 1) loop
    p := (select x from jsonb_array_elements(people) x where x->>'key' = keys[i]);
    for h in 1 .. 5 loop
      perform private.rest_order((ids->>(case when keys[i] = 'alex' then 'marcus' else keys[i] end))::uuid, (tok->>keys[i])::uuid, 'sell',
        round((p->>'close')::numeric * (1 + 0.004 * h), 2), 100 + h * 60, now() - make_interval(mins => 30 - h));
      traders := array(select k from unnest(keys) k where k not in (keys[i], 'alex', 'marcus'));
      perform private.rest_order((ids->>traders[1 + h % array_length(traders, 1)])::uuid, (tok->>keys[i])::uuid, 'buy',
        round((p->>'close')::numeric * (1 - 0.004 * h), 2), 120 + h * 45, now() - make_interval(mins => 30 - h));
    end loop;
  end loop;

  -- Watchlist, reputation history (twelve months) and achievements.
  insert into public.watchlist (user_id, token_id)
  select demo, (tok->>k)::uuid from unnest(array['marcus','david','priya']) k;

  insert into public.reputation_history (token_id, month, score)
  select (tok->>(x->>'key'))::uuid,
         (date_trunc('month', now()) - make_interval(months => 11 - m))::date,
         round(least(100, (x->>'score')::numeric - (11 - m) * 1.1 + case when m % 4 = 2 then 1.3 else 0 end), 2)
  from jsonb_array_elements(people) x, generate_series(0, 11) m;

  insert into public.achievements (profile_id, title, description, achieved_on) values
    (demo, 'Verified Creator', 'Identity and social accounts verified.', '2024-04-02'),
    (demo, 'First Trade', 'Completed a first token trade on RepX.', '2024-04-10'),
    (demo, 'Top 10% Trader', 'Ranked in the top 10% of traders by monthly return.', '2025-09-01'),
    (demo, 'Community Builder', 'Token held by more than 5 traders.', '2026-02-14'),
    ((ids->>'sarah')::uuid, 'Trending Token', 'Among the five most traded tokens of the week.', '2026-10-05');

  -- Each token scored by the formula now (reputation.sql), as the hourly rescoring does: the score a
  -- screen shows is the one its breakdown explains from the first moment; the months before keep
  -- the sample history.
  perform private.refresh_reputation();

  -- The RepX index's levels from the history above (the scheduler keeps them from here on).
  perform private.record_index_levels();
  update public.exchange_settings set creator_fee_share_bps = default;
end $seed$;
