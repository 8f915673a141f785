/** Rows of the admin's database functions, as contracts/results.ts declares them (see supabase/schemas). */
export type { AdminUserRow as AdminUser } from '@repex/shared-ui/contracts';

/** The token an account's person has, with its trading halt if any. */
export type { OwnToken } from './data';
