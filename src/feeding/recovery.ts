/**
 * Feeding recovery, the way an outbox works: every accepted operation is a D1 row holding its payload until
 * it is staged or terminal, so an entry whose queue message never arrived (the process died between the
 * insert and the send, or the queue lost it) is sent again. The search app's Durable Object asks for a check
 * every few seconds while the app has open entries (`recover` messages); the Durable Object's per-document
 * operation ids make a replay idempotent. A full feed whose entries are given up fails with a reason, and entries
 * left PREPARED by a cycle that ended (swapped, cancelled or failed) without D1 hearing of it take its outcome.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { findSearchAppById, type SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import { SearchAppClient } from '../search/search-app-client';
import type { FeedOperation, RecoveryRequest } from '../search/app-object/feeding';
import { cancelCycle, finishCycleIfDrained } from './full-feed';
import type { FeedingState } from '../db/schema';
import { sendOperations, setStates, settleCycle } from './operations';

/** An open entry is sent again once it waited this long since it was last sent, doubled per re-send. */
export const REDRIVE_AFTER_SECONDS = 20;
/** Re-sends before an entry is given up (about 10 minutes after it was first sent). */
export const MAX_REDRIVES = 5;
/** Why an entry a shard refused at its delivery is ERROR (`Feeding.apply` drops it without a result). */
export const REFUSED =
  'refused: it arrived over an hour after it was accepted, when a delete it may be older than was forgotten, or after it was given up';
/** Entries handled per check; the next check takes the rest. */
const BATCH = 2_000;

interface OpenRow {
  id: number;
  document_id: string;
  operation: 'update' | 'delete';
  payload: string | null;
  cycle_id: number | null;
  last_cycle_id: number | null;
  redrives: number;
}

/** One recovery check of a search app: re-sends what is overdue, gives up what was re-sent too often, ends a drained cycle. */
export async function recoverApp(env: Env, db: Db, request: RecoveryRequest): Promise<void> {
  const app = await findSearchAppById(db, request.appId);
  if (!app) return;
  const searchApp = new SearchAppClient(env, app.tenantCode, app.code);
  // Overdue: sent long enough ago, and either nothing is being applied or later entries already were.
  const overdue = await db.all<OpenRow>(sql`
    SELECT id, document_id, operation, payload, cycle_id, last_cycle_id, redrives FROM feeding_operations
    WHERE app_id = ${app.id} AND state IN ('CREATED', 'STARTED')
      AND (julianday('now') - julianday(coalesce(sent_at, created_at))) * 86400 > ${REDRIVE_AFTER_SECONDS} * (1 << redrives)
      AND (${request.stalled ? 1 : 0} = 1 OR id < ${request.appliedUpTo})
    ORDER BY id LIMIT ${BATCH}`);
  const lost = overdue.filter((row) => row.redrives >= MAX_REDRIVES);
  const resend = overdue.filter((row) => row.redrives < MAX_REDRIVES);
  if (lost.length) {
    await giveUpEntries(db, app, searchApp, lost.map(toFeedOperation), `lost: sent ${MAX_REDRIVES + 1} times without being processed`);
  }
  if (resend.length) {
    await sendOperations(env, app.id, resend.map(toFeedOperation));
    await db.run(sql`
      UPDATE feeding_operations SET sent_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), redrives = redrives + 1
      WHERE id IN (SELECT value FROM json_each(${JSON.stringify(resend.map((row) => row.id))}))`);
  }
  // The process may have died between a cycle's last entry and its swap: an ending cycle with nothing pending swaps now.
  const cycle = await searchApp.activeCycle();
  if (cycle?.state === 'ENDING') await finishCycleIfDrained(env, db, app, cycle.id);
  // A cross-shard swap whose job died after shard 0 committed (or that a search committed) is followed up before its
  // entries are FINISHED: dropped shards destroyed, statistics exchanged, so the shards rank as one index again.
  const swapSettled = await searchApp.settleSwap();
  // A cycle cancelled or failed on shard 0 whose end never reached the other shards: they drop its staging.
  await searchApp.settleEndedCycles();
  await settleEndedCycles(db, app, searchApp, cycle?.id);
  const [open] = await db.all<{ n: number }>(sql`
    SELECT count(*) AS n FROM feeding_operations WHERE app_id = ${app.id} AND state IN ('CREATED', 'STARTED')`);
  // A dropped shard a move or cycle still holds is dropped by a later check, once that ended: the checks go on till then.
  if (open.n === 0 && cycle?.state !== 'ENDING' && swapSettled) await searchApp.recoveryIdle(request.requestedAt);
}

/**
 * Gives up open entries whose messages failed (dead-lettered, or sent too often). A failed delivery may have applied an
 * operation on some shards and not others, so each entry takes what the objects hold of it: applied live FINISHED,
 * staged by its full feed PREPARED (the swap settles it), overtaken by a newer operation of its document IGNORED; the
 * others end ERROR with `reason`. A full feed missing such an entry fails instead of swapping without it (which would
 * delete its document from the live index). A live operation sent while a cycle was ending and held either live or
 * staged into that cycle only stays open: a re-send completes it (a replay is idempotent), or it is given up again; so
 * does one whose shard was moving its documents. Each operation decided is refused by the shards asked from then on.
 */
export async function giveUpEntries(
  db: Db,
  app: SearchAppRow,
  searchApp: SearchAppClient,
  operations: FeedOperation[],
  reason: string,
): Promise<void> {
  const open = new Set(
    (
      await db.all<{ id: number }>(sql`
        SELECT id FROM feeding_operations
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(operations.map((op) => op.opId))}))
          AND state IN ('CREATED', 'STARTED', 'PREPARED')`)
    ).map((row) => row.id),
  );
  const entries = operations.filter((op) => open.has(op.opId));
  if (!entries.length) return;
  const held = await searchApp.heldOperations(entries);
  const outcome = (op: FeedOperation): FeedingState | 'open' => {
    const found = held.get(op.opId);
    if (found === 'newer') return 'IGNORED';
    if (found === 'live') return 'FINISHED';
    if (found === 'staged') return 'PREPARED';
    return found === 'partial' || found === 'moving' ? 'open' : 'ERROR';
  };
  for (const state of ['FINISHED', 'PREPARED', 'IGNORED'] as const) {
    await setStates(
      db,
      entries.filter((op) => outcome(op) === state).map((op) => op.opId),
      state,
    );
  }
  const failed = entries.filter((op) => outcome(op) === 'ERROR');
  await setStates(
    db,
    failed.map((op) => op.opId),
    'ERROR',
    reason,
  );
  for (const cycleId of new Set(failed.map((op) => op.cycleId).filter((id): id is number => !!id))) {
    const missing = failed.filter((op) => op.cycleId === cycleId).length;
    if (await searchApp.failFullFeed(cycleId, `${missing} entries were ${reason}`)) {
      await settleCycle(db, app.id, cycleId, ['CREATED', 'STARTED', 'PREPARED'], 'CANCELED');
    }
  }
}

/**
 * Entries still PREPARED in cycles that have ended: the process died between the object's swap (or cancel, or
 * failure) and settling D1. They take the cycle's outcome, as the swap or cancel would have given them.
 */
async function settleEndedCycles(db: Db, app: SearchAppRow, searchApp: SearchAppClient, activeCycleId: number | undefined) {
  const cycles = await db.all<{ cycle_id: number }>(sql`
    SELECT DISTINCT cycle_id FROM feeding_operations
    WHERE app_id = ${app.id} AND state = 'PREPARED' AND cycle_id IS NOT ${activeCycleId ?? null}`);
  for (const { cycle_id: cycleId } of cycles) {
    const outcome = await searchApp.cycleOutcome(cycleId);
    if (outcome === 'FINISHED') await settleCycle(db, app.id, cycleId, ['PREPARED'], 'FINISHED');
    if (outcome === 'CANCELED') await cancelCycle(db, app, cycleId);
  }
}

function toFeedOperation(row: OpenRow): FeedOperation {
  const op: FeedOperation = { opId: row.id, documentId: row.document_id, operation: row.operation, cycleId: row.cycle_id };
  if (row.last_cycle_id !== null) op.lastCycle = row.last_cycle_id;
  if (row.payload !== null) op.payload = JSON.parse(row.payload);
  return op;
}

/** Entries open (or staged) this long without their app's checks catching them are re-armed by the Cron Trigger. */
const STALE_OPEN_MINUTES = 5;

/**
 * The Cron Trigger's backstop (the checks are armed with every accept and every cycle's end, but an instance could lose
 * its alarm): apps with entries open for more than a few minutes get their recovery checks armed again, and so do apps
 * with entries staged that long whose cycle is ending or has ended (`rearmForStaged`: a cycle left ENDING, or swapped
 * or cancelled without D1 hearing of it, whose check never came), and apps whose client asked End that long ago
 * (`full_feed_ends`: a cycle left ENDING may have no entry at all); a cycle still being fed is left alone. End's record
 * goes once the object holds no ending cycle (kept when a newer End rewrote it meanwhile).
 */
export async function rearmStaleApps(env: Env, db: Db): Promise<void> {
  const stale = sql`coalesce(sent_at, created_at) < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`-${STALE_OPEN_MINUTES} minutes`})`;
  const apps = await db.all<{
    id: number;
    tenant_code: string;
    code: string;
    open: number;
    staged_cycles: string;
    end_requested_at: string | null;
  }>(sql`
    SELECT id, tenant_code, code,
      EXISTS (SELECT 1 FROM feeding_operations WHERE app_id = app.id AND state IN ('CREATED', 'STARTED') AND ${stale}) AS open,
      (SELECT json_group_array(DISTINCT cycle_id) FROM feeding_operations WHERE app_id = app.id AND state = 'PREPARED' AND ${stale})
        AS staged_cycles,
      ends.requested_at AS end_requested_at
    FROM search_apps AS app
    LEFT JOIN full_feed_ends AS ends
      ON ends.app_id = app.id AND ends.requested_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`-${STALE_OPEN_MINUTES} minutes`})
    WHERE ends.app_id IS NOT NULL OR EXISTS (
      SELECT 1 FROM feeding_operations WHERE app_id = app.id AND state IN ('CREATED', 'STARTED', 'PREPARED') AND ${stale})`);
  for (const app of apps) {
    const searchApp = new SearchAppClient(env, app.tenant_code, app.code);
    if (app.open) await searchApp.noteAccepted(app.id);
    else if (!(await searchApp.rearmForStaged(app.id, JSON.parse(app.staged_cycles) as number[])) && app.end_requested_at !== null) {
      await db.run(sql`DELETE FROM full_feed_ends WHERE app_id = ${app.id} AND requested_at = ${app.end_requested_at}`);
    }
  }
}
