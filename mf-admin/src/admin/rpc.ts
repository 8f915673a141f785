import { supabase, unwrap } from '@repex/shared-ui';

/** Calls an admin database function; its refusal (role check, bad input) is thrown with its message. */
export const rpc = async <T,>(fn: string, args?: Record<string, unknown>) => unwrap(await supabase().rpc(fn, args)) as T;
