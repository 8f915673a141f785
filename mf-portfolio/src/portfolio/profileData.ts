import { MARKET_TOKEN_COLUMNS, type MarketToken, type MyTrade, type Profile } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

export interface ProfileData {
  profile: Profile;
  /** The user's own token, or null while it has not been issued. */
  token: MarketToken | null;
  ownedOfOwn: number;
  history: { month: string; score: number }[];
  achievements: { id: number; title: string; description: string; achieved_on: string }[];
  recent: MyTrade[];
  /** The founder allocation's vesting (public.token_vesting), or null. */
  vesting: { total: number; vested: number; cliff_at: string; ends_at: string } | null;
  /** The latest trades of the user's token, by anyone (the public tape). */
  tokenTrades: { id: number; type: string; amount: number; price: number; value: number; created_at: string }[];
}

export async function loadProfile(userId: string): Promise<ProfileData> {
  const db = supabase();
  const [profile, token, achievements, recent] = await Promise.all([
    db.from('profiles').select('*').eq('id', userId).single().then(unwrap),
    db.from('market_tokens').select(MARKET_TOKEN_COLUMNS).eq('owner_id', userId).maybeSingle().then(unwrap),
    db
      .from('achievements')
      .select('id, title, description, achieved_on')
      .eq('profile_id', userId)
      .order('achieved_on', { ascending: false })
      .then(unwrap),
    db.from('my_trades').select('*').order('created_at', { ascending: false }).limit(5).then(unwrap),
  ]);
  const own = token;
  let ownedOfOwn = 0;
  let history: ProfileData['history'] = [];
  let tokenTrades: ProfileData['tokenTrades'] = [];
  let vesting: ProfileData['vesting'] = null;
  if (own) {
    const [holding, hist, trades, schedule] = await Promise.all([
      db.from('holdings').select('amount').eq('user_id', userId).eq('token_id', own.id).maybeSingle().then(unwrap),
      db.from('reputation_history').select('month, score').eq('token_id', own.id).order('month').then(unwrap),
      db
        .from('recent_trades')
        .select('id, type, amount, price, value, created_at')
        .eq('token_id', own.id)
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .limit(20)
        .then(unwrap),
      db
        .from('token_vesting')
        .select('total, vested, cliff_at, ends_at')
        .eq('token_id', own.id)
        .maybeSingle()
        .then(unwrap),
    ]);
    vesting = schedule;
    ownedOfOwn = holding?.amount ?? 0;
    history = hist;
    tokenTrades = trades;
  }
  return {
    profile,
    token: own,
    ownedOfOwn,
    history,
    achievements,
    recent,
    tokenTrades,
    vesting,
  };
}
