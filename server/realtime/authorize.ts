import type { Database } from '../db/database';
import type { Claims } from '../auth/jwt';
import { becomeCaller } from '../db/caller';

/**
 * Whether a private channel's topic may be read (joined) or written (broadcast to, or presence
 * tracked on: `extension`) by these claims, decided by the row-level security policies on
 * realtime.messages, as Supabase Realtime does: a probe message is written and read back as the
 * caller, and everything is rolled back.
 */
export async function mayUseTopic(
  db: Database,
  claims: Claims,
  topic: string,
  action: 'read' | 'write',
  extension: 'broadcast' | 'presence' = 'broadcast',
): Promise<boolean> {
  const verdict = Symbol('rollback');
  let allowed = false;
  try {
    await db.transaction(async (tx) => {
      const [probe] =
        action === 'read'
          ? await tx.query<{ id: string }>(
              `insert into realtime.messages (topic, extension) values ($1, $2) returning id`,
              [topic, extension],
            )
          : [undefined];
      await becomeCaller(
        tx,
        { role: String(claims.role ?? 'anon'), claims },
        { method: 'GET', path: '/realtime/v1', headers: {}, cookies: {}, topic },
      );
      if (action === 'read') {
        allowed = (await tx.query('select 1 from realtime.messages where id = $1', [probe!.id])).length > 0;
      } else {
        try {
          await tx.query(`insert into realtime.messages (topic, extension) values ($1, $2)`, [topic, extension]);
          allowed = true;
        } catch {
          allowed = false;
        }
      }
      throw verdict; // nothing of the probe is kept
    });
  } catch (error) {
    if (error !== verdict) return false;
  }
  return allowed;
}
