import type { Database } from './typedDatabase';

type Views = Database['public']['Views'];
type Functions = Database['public']['Functions'];
type Tables = Database['public']['Tables'];

/**
 * What public.trading_screen answers (supabase/schemas/screens.sql): the reads the trading screen
 * makes of one token, each part shaped as the same read made on its own.
 */
export interface TradingScreen {
  /** Null for a token that does not exist. */
  token: Views['market_tokens']['Row'] | null;
  history: Functions['price_history']['Returns'];
  book: Pick<Views['order_book']['Row'], 'side' | 'price' | 'amount'>[];
  tape: Pick<Views['recent_trades']['Row'], 'id' | 'price' | 'amount' | 'type' | 'created_at'>[];
  /** The caller's available cash, and available tokens of this one. */
  cash: number;
  held: number;
  orders: Functions['list_open_orders']['Returns'];
  vesting: Pick<Views['token_vesting']['Row'], 'total' | 'vested' | 'cliff_at' | 'ends_at'> | null;
  offering:
    | (Views['offering_book']['Row'] & {
        bid: Pick<Tables['offering_bids']['Row'], 'price' | 'amount' | 'reserved' | 'placed_at' | 'allocated'> | null;
      })
    | null;
  /** The token's volatility auction while one is open. */
  auction: Views['volatility_auction_book']['Row'] | null;
}

/**
 * What public.market_screen answers (supabase/schemas/screens.sql): the market screen's reads
 * around its list, each part shaped as the same read made on its own.
 */
export interface MarketScreen {
  summary: Views['market_summary']['Row'];
  categories: string[];
  offerings: Pick<Views['offering_book']['Row'], 'token_id' | 'closes_at' | 'indicative_price'>[];
  index: {
    levels: Pick<Tables['index_levels']['Row'], 'at' | 'level'>[];
    basket: Pick<Views['index_basket']['Row'], 'token_id' | 'name' | 'username' | 'weight' | 'units' | 'price'>[];
    method: Functions['index_method']['Returns'];
  };
}
