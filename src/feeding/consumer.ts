/**
 * The feeding queue consumer: applies queued operations to the search app's Durable Object and
 * records each entry's terminal state; runs re-index jobs. A failing message is retried with
 * backoff and, after the last retry, lands on the dead-letter queue, whose consumer marks its
 * entries ERROR. One message failing never holds back the others of a batch.
 */
import { eq, sql } from 'drizzle-orm';
import { createDb, type Db } from '../db/client';
import { feedingJobs } from '../db/schema';
import type { Env } from '../env';
import { ApiError, describeDetails, logError } from '../errors';
import { messageBody } from '../validation';
import { SearchAppClient } from '../search/search-app-client';
import { findSearchAppById, type SearchAppRow } from '../db/queries';
import { giveUpEntries, recoverApp, REFUSED } from './recovery';
import { EmbeddingError } from '../search/embedding/providers';
import type { FeedOperation } from '../search/app-object/feeding';
import { embedMissingVectors, embedOperations, type EmbeddedOperations } from './embeddings';
import { payloadSchema, schemaFingerprint, validateEntry } from './envelopes';
import { finishCycleIfDrained } from './full-feed';
import { feedingMessage, indexConfigOf, setStates, type OperationsMessage, type RecoverMessage, type ReindexMessage } from './operations';

const RETRY_BASE_SECONDS = 2;

interface QueuedOperations {
  message: Message;
  body: OperationsMessage;
}

/**
 * Operations messages are taken per search app across the batch: their documents are embedded together (in as
 * few provider calls as it allows) and applied together; re-index and recovery messages follow, one by one.
 */
export async function consumeFeeding(batch: MessageBatch, env: Env): Promise<void> {
  const db = createDb(env.DB);
  const operationsByApp = new Map<number, QueuedOperations[]>();
  const others: Array<{ message: Message; body: ReindexMessage | RecoverMessage }> = [];
  for (const message of batch.messages) {
    const body = messageBody(feedingMessage, message);
    if (!body) continue;
    if (body.kind !== 'operations') others.push({ message, body });
    else if (operationsByApp.has(body.appId)) operationsByApp.get(body.appId)?.push({ message, body });
    else operationsByApp.set(body.appId, [{ message, body }]);
  }
  for (const [appId, queued] of operationsByApp) await applyAppOperations(env, db, appId, queued);
  for (const { message, body } of others) {
    await settle(message, body.kind, () => (body.kind === 'reindex' ? runReindex(env, db, body) : recoverApp(env, db, body)));
  }
}

/** Acks the message once `work` succeeded; otherwise retries it. */
async function settle(message: Message, kind: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
    message.ack();
  } catch (error) {
    retryLater(message, kind, error);
  }
}

/** Retries the message with backoff; after the last retry it lands on the dead-letter queue. */
function retryLater(message: Message, kind: string, error: unknown): void {
  logError('feeding message failed', error, { attempts: message.attempts, kind });
  message.retry({ delaySeconds: Math.min(RETRY_BASE_SECONDS ** message.attempts, 300) });
}

/**
 * Dead-letter consumer: the job of a message that exhausted its retries ends in ERROR, and so do its operations that no
 * object holds (`giveUpEntries`: one applied on some shard takes that state; a full feed missing one fails).
 */
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
      const app = await findSearchAppById(db, body.appId);
      // Gone: the app's entries went with it.
      if (app) {
        await giveUpEntries(db, app, new SearchAppClient(env, app.tenantCode, app.code), body.operations, reason);
        await finishCyclesOf(env, db, app, body.operations);
      }
    }
    message.ack();
  }
}

/**
 * The messages of one search app: started, embedded and applied together (one call per shard for the whole batch,
 * one D1 update per state). When that apply fails, each message is applied alone, so a failing message is retried
 * by itself and never holds back the others.
 */
async function applyAppOperations(env: Env, db: Db, appId: number, queued: QueuedOperations[]): Promise<void> {
  let app: SearchAppRow | undefined;
  let searchApp: SearchAppClient;
  let embedded: EmbeddedOperations[];
  try {
    app = await findSearchAppById(db, appId);
    if (!app) {
      for (const { message } of queued) message.ack(); // the search app was deleted with its entries
      return;
    }
    const runnable = await startOperations(
      db,
      app,
      queued.map(({ body }) => body),
    );
    searchApp = new SearchAppClient(env, app.tenantCode, app.code);
    embedded = await embedOperations(env, app, searchApp, runnable);
  } catch (error) {
    for (const { message, body } of queued) retryLater(message, body.kind, error);
    return;
  }
  const applyTogether = (indexes: number[]) =>
    applyEmbedded(
      env,
      db,
      app,
      searchApp,
      indexes.map((i) => embedded[i]),
      indexes.map((i) => queued[i].body),
    );
  if (queued.length > 1) {
    try {
      await applyTogether(queued.map((_, i) => i));
      for (const { message } of queued) message.ack();
      return;
    } catch (error) {
      logError('feeding batch failed, applying its messages one by one', error, { messages: queued.length });
    }
  }
  // A replay is idempotent: operations applied or staged by the failed attempt come out the same again.
  for (const [i, { message, body }] of queued.entries()) await settle(message, body.kind, () => applyTogether([i]));
}

/** Applies the embedded operations of some messages of one app and records each entry's outcome; ends drained cycles. */
async function applyEmbedded(
  env: Env,
  db: Db,
  app: SearchAppRow,
  searchApp: SearchAppClient,
  parts: EmbeddedOperations[],
  bodies: OperationsMessage[],
): Promise<void> {
  // The provider failed on these texts after its retries: their documents stay as they were, never live without a vector.
  for (const [reason, ids] of idsBy(parts.flatMap(({ failed }) => [...failed])))
    await setStates(db, ids, 'ERROR', `embedding failed: ${reason}`);
  const operations = parts.flatMap((part) => part.operations);
  const vectors = [...new Map(parts.flatMap((part) => part.vectors).map((vector) => [vector.hash, vector])).values()];
  const results = operations.length ? await searchApp.apply(operations, indexConfigOf(app), vectors) : [];
  for (const [state, ids] of idsBy(results.map((result) => [result.opId, result.state]))) await setStates(db, ids, state);
  // A shard answers nothing for an operation it refuses (given up before, or older than its dropped tombstones' horizon):
  // every re-send would meet the same refusal, so it is given up now rather than after its re-sends.
  const answered = new Set(results.map((result) => result.opId));
  const refused = operations.filter((op) => !answered.has(op.opId));
  if (refused.length) await giveUpEntries(db, app, searchApp, refused, REFUSED);
  await finishCyclesOf(
    env,
    db,
    app,
    bodies.flatMap((body) => body.operations),
  );
}

/** Entry ids grouped by what they are paired with (a state, a reason). */
function idsBy<K>(pairs: Iterable<[id: number, key: K]>): Map<K, number[]> {
  const groups = new Map<K, number[]>();
  for (const [id, key] of pairs) {
    const ids = groups.get(key);
    if (ids) ids.push(id);
    else groups.set(key, [id]);
  }
  return groups;
}

/**
 * Marks the messages' still-open operations STARTED and answers those to apply, per message. The schema may have
 * changed since an operation was accepted (its message names the schema it was validated against): what no
 * longer fits ends in ERROR.
 */
async function startOperations(db: Db, app: SearchAppRow, messages: OperationsMessage[]): Promise<FeedOperation[][]> {
  const ids = messages.flatMap((message) => message.operations.map((op) => op.opId));
  const open = new Set(
    (
      await db.all<{ id: number }>(sql`
        SELECT id FROM feeding_operations
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
          AND state IN ('CREATED', 'STARTED')`)
    ).map((row) => row.id),
  );
  const current = schemaFingerprint(app.fields);
  const schema = payloadSchema(app.fields);
  const misfits = new Map<number, string>();
  const runnable = messages.map((message) =>
    message.operations.filter((op) => {
      if (!open.has(op.opId)) return false;
      if (op.operation !== 'update' || message.schema === current) return true;
      const check = validateEntry('svc', { header: { id: op.documentId, action: 'update' }, payload: op.payload }, schema);
      if (!check.ok) misfits.set(op.opId, `payload no longer fits the schema: ${describeDetails(check.details)}`);
      return check.ok;
    }),
  );
  await setStates(
    db,
    runnable.flat().map((op) => op.opId),
    'STARTED',
  );
  for (const [reason, misfitIds] of idsBy(misfits)) await setStates(db, misfitIds, 'ERROR', reason);
  return runnable;
}

async function finishCyclesOf(env: Env, db: Db, app: SearchAppRow, operations: FeedOperation[]): Promise<void> {
  const cycles = new Set(operations.map((op) => op.cycleId).filter((id): id is number => !!id));
  for (const cycleId of cycles) await finishCycleIfDrained(env, db, app, cycleId);
}

async function runReindex(env: Env, db: Db, message: ReindexMessage): Promise<void> {
  const app = await findSearchAppById(db, message.appId);
  if (!app) return;
  const searchApp = new SearchAppClient(env, app.tenantCode, app.code);
  try {
    await reindexApp(env, db, app, searchApp, message);
  } finally {
    // Deleted while the job ran: what it wrote after the objects were wiped (a rebuilt index, a re-shard's staging) goes too.
    if (!(await findSearchAppById(db, message.appId))) await searchApp.destroy();
  }
}

async function reindexApp(env: Env, db: Db, app: SearchAppRow, searchApp: SearchAppClient, message: ReindexMessage): Promise<void> {
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
  try {
    // A new shard count takes effect here (or at the next full feed's swap, whichever comes first).
    await searchApp.reshard(app.shards, config, message.jobId);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    await db.update(feedingJobs).set({ state: 'ERROR', error: error.message, finishedAt: now() }).where(eq(feedingJobs.id, message.jobId));
    return;
  }
  await db
    .update(feedingJobs)
    .set({ state: 'FINISHED', processed: result.documents, total: result.documents, finishedAt: now() })
    .where(eq(feedingJobs.id, message.jobId));
}

function now(): string {
  return new Date().toISOString();
}
