import type { Database as Generated } from './database';
import type { ReputationComponents } from './data';
import type { OrderResult, Payment } from './results';

/*
 * The browser's Database type: the generated one (npm run db:types), with what the catalog cannot
 * say laid over it, as Supabase's guide does with its generated types:
 *  - a function's arguments may be null: a SQL function takes null for any argument and each of
 *    RepX's refuses a missing value in words, which the screens show as the database says it;
 *  - jsonb results have the shapes results.ts declares.
 */
type Public = Generated['public'];
type Functions = Public['Functions'];

/** The shape each jsonb result has, by function. */
interface JsonResults {
  place_order: OrderResult;
  replace_order: OrderResult;
  create_deposit: Payment;
  create_withdrawal: Payment;
  reputation_components: ReputationComponents;
}

type Nullable<A> = { [K in keyof A]: A[K] | null };

type TypedFunction<F extends keyof Functions> = {
  Args: Nullable<Functions[F]['Args']>;
  Returns: F extends keyof JsonResults ? JsonResults[F] : Functions[F]['Returns'];
};

export type Database = {
  public: Omit<Public, 'Functions'> & {
    Functions: { [F in keyof Functions]: TypedFunction<F> };
  };
};

/** A function the API exposes, its arguments and its result. */
export type FunctionName = keyof Functions;
export type FunctionArgs<F extends FunctionName> = Database['public']['Functions'][F]['Args'];
export type FunctionResult<F extends FunctionName> = Database['public']['Functions'][F]['Returns'];
