/**
 * The feeding queue consumer: applies queued operations to the search app's Durable Object and
 * records each entry's terminal state; runs re-index jobs. A failing message is retried with
 * backoff and, after the last retry, lands on the dead-letter queue, whose consumer marks its
 * entries ERROR. One message failing never holds back the others of a batch.
 */
import { eq, sql } from 'drizzle-orm';
import { createDb, type Db } from '../db/client';
import { feedingJobs, type FeedingState } from '../db/schema';
import type { Env } from '../env';
import { describeDetails, logError } from '../errors';
import { messageBody } from '../validation';
import { SearchAppClient } from '../search/search-app-client';
import { findSearchAppById, type SearchAppRow } from '../db/queries';
import { recoverApp } from './recovery';
import { EmbeddingError } from '../search/embedding/providers';
import { embedMissingVectors, embedOperations } from './embeddings';
import { payloadSchema, validateEntry } from './envelopes';
import { finishCycleIfDrained } from './full-feed';
import { feedingMessage, indexConfigOf, setStates, type OperationsMessage, type ReindexMessage } from './operations';

const RETRY_BASE_SECONDS = 2;

export async function consumeFeeding(batch: MessageBatch, env: Env): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const body = messageBody(feedingMessage, message);
    if (!body) continue;
    try {
      if (body.kind === 'reindex') await runReindex(env, db, body);
      else if (body.kind === 'recover') await recoverApp(env, db, body);
      else await applyOperations(env, db, body);
      message.ack();
    } catch (error) {
      logError('feeding message failed', error, { attempts: message.attempts, kind: body.kind });
      message.retry({ delaySeconds: Math.min(RETRY_BASE_SECONDS ** message.attempts, 300) });
    }
  }
}

/** Dead-letter consumer: the operations or job of a message that exhausted its retries end in ERROR. */
export async function consumeFeedingDeadLetters(batch: MessageBatch, env: Env): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const body = messageBody(feedingMessage, message);
    if (!body) continue;
    const reason = `processing failed after ${message.attempts} deliveries`;
    if (body.kind === 'recover') {
      // A failed check needs no trace: the Durable Object asks again.
    } else if (body.kind === 'reindex') {
      await db.update(feedingJobs).set({ state: 'ERROR', error: reason, finishedAt: now() }).where(eq(feedingJobs.id, body.jobId));
    } else {
      await setStates(
        db,
        body.operations.map((op) => op.opId),
        'ERROR',
        reason,
      );
      const app = await findSearchAppById(db, body.appId);
      if (app) await finishCyclesOf(env, db, app, body);
    }
    message.ack();
  }
}

async function applyOperations(env: Env, db: Db, message: OperationsMessage): Promise<void> {
  const app = await findSearchAppById(db, message.appId);
  if (!app) return; // the search app was deleted with its entries
  const open = new Set(
    (
      await db.all<{ id: number }>(sql`
        SELECT id FROM feeding_operations
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(message.operations.map((op) => op.opId))}))
          AND state IN ('CREATED', 'STARTED')`)
    ).map((row) => row.id),
  );
  // The schema may have changed since the operation was accepted: what no longer fits ends in ERROR.
  const schema = payloadSchema(app.fields);
  const operations = message.operations.filter((op) => open.has(op.opId));
  const misfits = new Map<number, string>();
  for (const op of operations) {
    if (op.operation !== 'update') continue;
    const check = validateEntry('svc', { header: { id: op.documentId, action: 'update' }, payload: op.payload }, schema);
    if (!check.ok) misfits.set(op.opId, `payload no longer fits the schema: ${describeDetails(check.details)}`);
  }
  const runnable = operations.filter((op) => !misfits.has(op.opId));
  await setStates(
    db,
    runnable.map((op) => op.opId),
    'STARTED',
  );
  for (const [opId, reason] of misfits) await setStates(db, [opId], 'ERROR', reason);

  const searchApp = new SearchAppClient(env, app.tenantCode, app.code);
  let embedded: Awaited<ReturnType<typeof embedOperations>>;
  try {
    embedded = await embedOperations(env, app, searchApp, runnable);
  } catch (error) {
    if (!(error instanceof EmbeddingError)) throw error;
    // The provider failed after its retries: these documents stay as they were, never live without a vector.
    await setStates(
      db,
      runnable.map((op) => op.opId),
      'ERROR',
      `embedding failed: ${error.message}`,
    );
    await finishCyclesOf(env, db, app, message);
    return;
  }
  const results = runnable.length ? await searchApp.apply(embedded.operations, indexConfigOf(app), embedded.vectors) : [];
  const byState = new Map<FeedingState, number[]>();
  for (const result of results) {
    const ids = byState.get(result.state);
    if (ids) ids.push(result.opId);
    else byState.set(result.state, [result.opId]);
  }
  for (const [state, ids] of byState) await setStates(db, ids, state);
  await finishCyclesOf(env, db, app, message);
}

async function finishCyclesOf(env: Env, db: Db, app: SearchAppRow, message: OperationsMessage): Promise<void> {
  const cycles = new Set(message.operations.map((op) => op.cycleId).filter((id): id is number => !!id));
  for (const cycleId of cycles) await finishCycleIfDrained(env, db, app, cycleId);
}

async function runReindex(env: Env, db: Db, message: ReindexMessage): Promise<void> {
  const app = await findSearchAppById(db, message.appId);
  if (!app) return;
  const searchApp = new SearchAppClient(env, app.tenantCode, app.code);
  const { documents } = await searchApp.stats();
  await db.update(feedingJobs).set({ state: 'STARTED', total: documents }).where(eq(feedingJobs.id, message.jobId));
  const config = indexConfigOf(app);
  try {
    await embedMissingVectors(env, app, searchApp, config);
  } catch (error) {
    if (!(error instanceof EmbeddingError)) throw error;
    await db
      .update(feedingJobs)
      .set({ state: 'ERROR', error: `embedding failed: ${error.message}`, finishedAt: now() })
      .where(eq(feedingJobs.id, message.jobId));
    return;
  }
  const result = await searchApp.reindex(config);
  await db
    .update(feedingJobs)
    .set({ state: 'FINISHED', processed: result.documents, total: result.documents, finishedAt: now() })
    .where(eq(feedingJobs.id, message.jobId));
}

function now(): string {
  return new Date().toISOString();
}
