import type { Statement } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

/**
 * The caller's statement for [from, to], UTC dates (public.my_statement); throws the database's
 * refusal. Read with GET: a replica may serve it.
 */
export async function loadStatement(from: string, to: string): Promise<Statement> {
  return unwrap(await supabase().rpc('my_statement', { p_from: from, p_to: to }, { get: true }));
}

/** The file a statement is saved as: repx-statement-2026-11-01-to-2026-11-30.csv */
export const statementFileName = (s: Pick<Statement, 'from' | 'to'>, ext: 'csv' | 'pdf') =>
  `repx-statement-${s.from}-to-${s.to}.${ext}`;
