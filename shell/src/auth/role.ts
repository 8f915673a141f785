import { supabase, unwrap } from '@repex/shared-ui/platform';

/** Spec section 7: select role from profiles where id equals the user's id, single row. */
async function fetchRole(userId: string): Promise<string> {
  return unwrap(await supabase().from('profiles').select('role').eq('id', userId).single()).role;
}

/**
 * Whether the user may open the admin area: the one check the admin sign-in page and the admin
 * route's guard both make (the database checks every admin call again, an active account included).
 */
export async function isAdmin(userId: string): Promise<boolean> {
  return (await fetchRole(userId)) === 'admin';
}
