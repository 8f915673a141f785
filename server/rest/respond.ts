import type { IncomingMessage } from 'node:http';
import { restError } from './errors';
import { wantsSingle } from './plan';

/** How PostgREST answers: the Content-Range of a page, and `.single()`'s one object. */

export function contentRange(offset: number, rows: number, total?: number): string {
  const range = rows > 0 ? `${offset}-${offset + rows - 1}` : '*';
  return `${range}/${total ?? '*'}`;
}

/** A `.single()` answer: exactly one row, or 406 as PostgREST says it. */
export function singleOrThrow(req: IncomingMessage, body: string, n: number): string {
  if (!wantsSingle(req)) return body;
  if (n !== 1) {
    throw restError(
      406,
      'PGRST116',
      'Cannot coerce the result to a single JSON object',
      `The result contains ${n} rows`,
    );
  }
  return JSON.stringify((JSON.parse(body) as unknown[])[0]);
}
