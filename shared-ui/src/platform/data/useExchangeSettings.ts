import type { Database } from '../../contracts/typedDatabase';
import { supabase } from '../supabase';
import { useTableChanges } from './useTableChanges';
import { unwrap, useQuery, type QueryState } from './useQuery';

/** The exchange's settings: fees, order and money limits, a new token's terms (supabase/schemas/core.sql). */
export type ExchangeSettings = Database['public']['Tables']['exchange_settings']['Row'];

/**
 * The exchange's settings, the one read of them every screen shares, followed live: an admin may
 * change them at any time, and an order panel, a deposit's limits or the admin's own form then
 * show the new values.
 */
export function useExchangeSettings(): QueryState<ExchangeSettings> {
  const settings = useQuery(async () => unwrap(await supabase().from('exchange_settings').select('*').single()), []);
  // The change carries the whole row: every open screen takes it from the message, none reads again.
  useTableChanges('exchange_settings', undefined, (row) => settings.patch(() => row as ExchangeSettings));
  return settings;
}
