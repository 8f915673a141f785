import { supabase } from '@repex/shared-ui';

/** Spec section 7: select role from profiles where id equals the user's id, single row. */
export async function fetchRole(userId: string): Promise<string> {
  const { data, error } = await supabase().from('profiles').select('role').eq('id', userId).single();
  if (error) throw error;
  return (data as { role: string }).role;
}
