/**
 * What the Cron Trigger does (wrangler.toml `[triggers]`): re-arms feeding recovery for apps whose open entries
 * went stale, marks email deliveries no queue can still send as `failed`, and deletes what is past its retention
 * age, in bounded batches so one run stays short; rows left over are taken by the next run.
 */
import { sql } from 'drizzle-orm';
import { createDb, type Db } from './db/client';
import { numberVar, type Env } from './env';
import { logError } from './errors';
import { rearmStaleApps } from './feeding/recovery';

/** Rows deleted per statement, and statements per table and run. */
const BATCH_ROWS = 1_000;
const BATCHES_PER_RUN = 10;

export const RETENTION_DEFAULTS = { feedingDays: 7, emailDays: 30, chatDays: 30 };

/**
 * Cloudflare Queues keep a message at most 14 days: a delivery still `queued` or `sending` that long after it was
 * logged has no job left to send it (the worker died between logging it and queueing it, or during its last attempt,
 * which may have reached the provider: so "not confirmed", not "not sent").
 */
const QUEUE_MAX_RETENTION_DAYS = 14;
export const UNDELIVERED_ERROR = `never confirmed sent: no queue holds its job after ${QUEUE_MAX_RETENTION_DAYS} days`;

interface Pruned {
  feedingEntries: number;
  /** Deliveries marked `failed` because no queue can still hold their job. */
  undeliveredEmails: number;
  emailDeliveries: number;
  chatSessions: number;
}

/** The scheduled handler's work; answers what was marked and deleted (for tests and the log line). */
export async function runMaintenance(env: Env): Promise<Pruned> {
  const db = createDb(env.DB);
  await rearmStaleApps(env, db).catch((error) => logError('feeding recovery sweep failed', error));
  const pruned = {
    feedingEntries: await changeInBatches(
      db,
      (limit) => sql`
      DELETE FROM feeding_operations WHERE id IN (
        SELECT id FROM feeding_operations
        WHERE created_at < ${cutoff(numberVar(env.FEEDING_RETENTION_DAYS, RETENTION_DEFAULTS.feedingDays))}
          AND state IN ('FINISHED', 'ERROR', 'IGNORED', 'CANCELED')
        ORDER BY id LIMIT ${limit})`,
    ),
    undeliveredEmails: await changeInBatches(
      db,
      (limit) => sql`
      UPDATE email_deliveries SET status = 'failed', error = ${UNDELIVERED_ERROR}, updated_at = ${new Date().toISOString()}
      WHERE rowid IN (
        SELECT rowid FROM email_deliveries
        WHERE created_at < ${cutoff(QUEUE_MAX_RETENTION_DAYS)} AND status IN ('queued', 'sending')
        ORDER BY rowid LIMIT ${limit})`,
    ),
    emailDeliveries: await changeInBatches(
      db,
      (limit) => sql`
      DELETE FROM email_deliveries WHERE rowid IN (
        SELECT rowid FROM email_deliveries
        WHERE created_at < ${cutoff(numberVar(env.EMAIL_RETENTION_DAYS, RETENTION_DEFAULTS.emailDays))} AND status IN ('sent', 'failed')
        ORDER BY rowid LIMIT ${limit})`,
    ),
    // A session's turns go with it (foreign key ON DELETE CASCADE); `updated_at` moves with every turn.
    chatSessions: await changeInBatches(
      db,
      (limit) => sql`
      DELETE FROM chat_sessions WHERE id IN (
        SELECT id FROM chat_sessions WHERE updated_at < ${cutoff(numberVar(env.CHAT_RETENTION_DAYS, RETENTION_DEFAULTS.chatDays))}
        ORDER BY id LIMIT ${limit})`,
    ),
  };
  console.log(JSON.stringify({ level: 'info', msg: 'maintenance', pruned }));
  return pruned;
}

function cutoff(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString();
}

async function changeInBatches(db: Db, statement: (limit: number) => ReturnType<typeof sql>): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    const result = await db.run(statement(BATCH_ROWS));
    const changes = result.meta.changes ?? 0;
    total += changes;
    if (changes < BATCH_ROWS) break;
  }
  return total;
}
