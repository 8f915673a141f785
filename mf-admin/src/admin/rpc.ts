import type { FunctionName } from '@repex/shared-ui/contracts';
import { supabase, toast, unwrap } from '@repex/shared-ui/platform';

/** Calls an admin database function; its refusal (role check, bad input) is thrown with its message. */
export const rpc = async <T>(fn: FunctionName, args?: Record<string, unknown>) =>
  unwrap(await supabase().rpc(fn, args as never)) as T;

/**
 * One admin action from a button: the call, a toast that says what it did (from its result), or
 * the database's refusal in a destructive toast; `onDone` refreshes what shows it.
 */
export async function act<T>(
  fn: FunctionName,
  args: Record<string, unknown>,
  said: (result: T) => { title: string; description: string },
  onDone: () => void,
) {
  try {
    toast(said(await rpc<T>(fn, args)));
    onDone();
  } catch (error) {
    toast({
      title: 'Action Failed',
      description: error instanceof Error ? error.message : String(error),
      variant: 'destructive',
    });
  }
}
