/**
 * Full-feed cycles: the search app's Durable Object holds the cycle and the staged documents;
 * D1 knows which of the cycle's operations are still pending. The swap happens once End was
 * requested and no operation of the cycle is pending, by whichever comes last: End, or the
 * consumer finishing the cycle's last operation. `finishFullFeed` is idempotent, so both may try.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import { ApiError } from '../errors';
import type { FullFeedCycle } from '../search/app-storage';
import { SearchAppClient } from '../search/search-app-client';
import { indexConfigOf, pendingInCycle, settleCycle } from './operations';

/**
 * End's first step: the cycle is marked ENDING (its swap follows once nothing of it is pending). D1 records the request
 * first (`full_feed_ends`), so the Cron Trigger's backstop finds a cycle left ENDING with a lost check even when no
 * feeding entry names it. An End without a cycle (404) takes its record back (unless another End rewrote it meanwhile).
 */
export async function requestCycleEnd(db: Db, app: SearchAppRow, searchApp: SearchAppClient): Promise<FullFeedCycle> {
  const [recorded] = await db.all<{ requested_at: string }>(sql`
    INSERT INTO full_feed_ends (app_id) VALUES (${app.id})
    ON CONFLICT (app_id) DO UPDATE SET requested_at = excluded.requested_at
    RETURNING requested_at`);
  try {
    return await searchApp.requestFullFeedEnd();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      await db.run(sql`DELETE FROM full_feed_ends WHERE app_id = ${app.id} AND requested_at = ${recorded.requested_at}`);
    }
    throw error;
  }
}

export async function finishCycleIfDrained(env: Env, db: Db, app: SearchAppRow, cycleId: number): Promise<boolean> {
  const searchApp = new SearchAppClient(env, app.tenantCode, app.code);
  const cycle = await searchApp.activeCycle();
  if (cycle?.id !== cycleId || cycle.state !== 'ENDING') return false;
  if ((await pendingInCycle(db, app.id, cycleId)) > 0) return false;
  const swap = await searchApp.finishFullFeed(cycleId, indexConfigOf(app));
  if (swap === 'not-ending') return false;
  // A refused swap failed the cycle: its entries end as those of a cancelled one.
  await settleCycle(db, app.id, cycleId, ['PREPARED'], swap === 'swapped' ? 'FINISHED' : 'CANCELED');
  return swap === 'swapped';
}

export async function cancelCycle(db: Db, app: SearchAppRow, cycleId: number): Promise<void> {
  await settleCycle(db, app.id, cycleId, ['CREATED', 'STARTED', 'PREPARED'], 'CANCELED');
}
