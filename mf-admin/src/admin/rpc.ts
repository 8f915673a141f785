import type { FunctionArgs, FunctionName, FunctionResult } from '@repex/shared-ui/contracts';
import { supabase, toast, unwrap } from '@repex/shared-ui/platform';

/**
 * Calls an admin database function; its refusal (role check, bad input) is thrown with its message.
 * Typed by the function's name: its arguments and result are the database's (contracts/typedDatabase.ts).
 */
export async function rpc<F extends FunctionName>(fn: F, args?: FunctionArgs<F>): Promise<FunctionResult<F>> {
  // supabase-js resolves a call's types from a literal function name, not from a generic one:
  // the one conversion here states, for every name, what the signature above promises.
  return unwrap(await supabase().rpc(fn, args as never)) as unknown as FunctionResult<F>;
}

/**
 * One admin action from a button: the call, a toast that says what it did (from its result), or
 * the database's refusal in a destructive toast; `onDone` refreshes what shows it.
 */
export async function act<F extends FunctionName>(
  fn: F,
  args: FunctionArgs<F>,
  said: (result: FunctionResult<F>) => { title: string; description: string },
  onDone: () => void,
) {
  try {
    toast(said(await rpc(fn, args)));
    onDone();
  } catch (error) {
    toast({
      title: 'Action Failed',
      description: error instanceof Error ? error.message : String(error),
      variant: 'destructive',
    });
  }
}
