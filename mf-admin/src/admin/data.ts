import { supabase, unwrap } from '@repex/shared-ui/platform';

/** The admin area's direct reads, typed by the database; its actions go through rpc.ts. */

const TOKEN_HALT = 'id, name, halt_reason, halted_at';

/** The token an account owns, with its trading halt, if it has one. */
export const loadOwnToken = async (userId: string) =>
  unwrap(await supabase().from('tokens').select(TOKEN_HALT).eq('owner_id', userId).maybeSingle());

/** Tokens with their trading halts. */
export const loadTokenHalts = async (ids: string[]) =>
  ids.length ? unwrap(await supabase().from('tokens').select(TOKEN_HALT).in('id', ids)) : [];

/** A token and its trading halt, as the admin's halt dialog shows it. */
export type OwnToken = NonNullable<Awaited<ReturnType<typeof loadOwnToken>>>;
