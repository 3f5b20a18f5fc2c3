/**
 * Feeding queue entries in D1 and the messages that carry operations to the consumer.
 * An accepted operation is a D1 row (state CREATED) plus a place in a queue message; the payload
 * travels only in the message, which stays under the 128 KB queue limit.
 */
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import type { SearchAppRow } from '../db/queries';
import { feedingOperations, TERMINAL_FEEDING_STATES, type FeedingState } from '../db/schema';
import type { Env } from '../env';
import { ApiError, logError } from '../errors';
import { activeEmbedder } from '../search/embedding/config';
import { SearchAppClient } from '../search/search-app-client';
import type { FeedOperation, RecoveryRequest } from '../search/app-object/feeding';
import type { AppIndexConfig } from '../search/app-object/live-index';
import { schemaFingerprint, type DocumentOperation, type DocumentType } from './envelopes';
import { FEEDING_STATES, type QueueListQuery, type QueueListResponse } from '../contract/feeding';

const feedOperation: z.ZodType<FeedOperation> = z.object({
  opId: z.number().int(),
  documentId: z.string(),
  operation: z.enum(['update', 'delete']),
  payload: z.record(z.string(), z.unknown()).optional(),
  cycleId: z.number().int().nullable().optional(),
  lastCycle: z.number().int().optional(),
});
const operationsMessage = z.object({
  kind: z.literal('operations'),
  appId: z.number().int(),
  operations: z.array(feedOperation),
  /** `schemaFingerprint` of the fields the payloads were validated against (absent: check them again). */
  schema: z.string().optional(),
});
const reindexMessage = z.object({ kind: z.literal('reindex'), appId: z.number().int(), jobId: z.string() });
/** Sent by the search app's Durable Object while the app has open entries (see recovery.ts). */
const recoverMessage = z.object({
  kind: z.literal('recover'),
  appId: z.number().int(),
  stalled: z.boolean(),
  appliedUpTo: z.number().int(),
  requestedAt: z.number(),
}) satisfies z.ZodType<{ kind: 'recover' } & RecoveryRequest>;

/**
 * The bodies of the feeding queue (and its dead-letter queue). The consumer parses every body with it:
 * a message queued by an older deploy is read by the new code, so fields are only ever added as optional.
 */
export const feedingMessage = z.discriminatedUnion('kind', [operationsMessage, reindexMessage, recoverMessage]);
export type OperationsMessage = z.output<typeof operationsMessage>;
export type ReindexMessage = z.output<typeof reindexMessage>;
export type RecoverMessage = z.output<typeof recoverMessage>;
export type FeedingMessage = z.output<typeof feedingMessage>;

/** Room left for the message envelope under the 128 KB queue message limit. */
const MAX_MESSAGE_BYTES = 110_000;
/** sendBatch accepts at most 100 messages and 256 KB. */
const MAX_BATCH_MESSAGES = 100;
const MAX_BATCH_BYTES = 240_000;

/** A feeding queue entry as the API answers it (FeedingQueue). */
export interface QueueEntry {
  id: number;
  documentId: string;
  operation: 'update' | 'delete';
  state: FeedingState;
  type: string;
  createdAt: string;
  finishedAt: string | null;
  error?: string | null;
}

type OperationRow = typeof feedingOperations.$inferSelect;

export function toQueueEntry(row: OperationRow): QueueEntry {
  const entry: QueueEntry = {
    id: row.id,
    documentId: row.documentId,
    operation: row.operation,
    state: row.state,
    type: row.type,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
  };
  if (row.error) entry.error = row.error;
  return entry;
}

/** What the app's indexes are built with: its schema, named sorts, ranking settings and, with semantic fields, its embedder. */
export function indexConfigOf(app: SearchAppRow): AppIndexConfig {
  const embedder = activeEmbedder(app)?.fingerprint;
  return { fields: app.fields, sorts: app.sorts, ranking: app.ranking, ...(embedder ? { embedder } : {}) };
}

/** D1 strings are limited to 2 MB: the operations of one insert stay under half of it. */
const MAX_INSERT_BYTES = 1 << 20;

/**
 * Records operations as CREATED queue entries, with their payloads (the outbox recovery re-sends from), and
 * queues them for the search app. Operations sent while a full feed is active belong to that cycle; each names the last
 * cycle started (`lastCycle`), so one sent while that cycle was ending outlives its swap.
 */
export async function acceptOperations(
  env: Env,
  db: Db,
  app: SearchAppRow,
  type: DocumentType,
  operations: DocumentOperation[],
): Promise<QueueEntry[]> {
  if (!operations.length) return [];
  // Arms the app's recovery before any row exists, so no accepted entry can be left without it.
  const { cycle, lastCycle } = await new SearchAppClient(env, app.tenantCode, app.code).noteAccepted(app.id);
  const cycleId = cycle?.state === 'ACTIVE' ? cycle.id : null;
  const rows: Array<{ id: number; created_at: string }> = [];
  const serialized = operations.map((op) => JSON.stringify([op.documentId, op.operation, op.payload ?? null]));
  for (const group of groupBySize(serialized, (text) => byteLength(text) + 1, MAX_INSERT_BYTES)) {
    rows.push(
      ...(await db.all<{ id: number; created_at: string }>(sql`
        INSERT INTO feeding_operations (app_id, document_id, operation, state, type, cycle_id, last_cycle_id, payload, sent_at)
        SELECT ${app.id}, json_extract(value, '$[0]'), json_extract(value, '$[1]'), 'CREATED', ${type}, ${cycleId}, ${lastCycle},
               json_extract(value, '$[2]'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        FROM json_each(${`[${group.join(',')}]`})
        RETURNING id, created_at`)),
    );
  }
  rows.sort((a, b) => a.id - b.id);
  const queued: FeedOperation[] = operations.map((op, i) => ({ ...op, opId: rows[i].id, cycleId, lastCycle }));
  try {
    await sendOperations(env, app.id, queued, schemaFingerprint(app.fields));
  } catch (error) {
    logError('feeding operations not queued', error, { appId: app.id });
    await setStates(
      db,
      queued.map((op) => op.opId),
      'ERROR',
      'could not be queued',
    );
    throw new ApiError(503, 'The documents could not be queued; try again');
  }
  return operations.map((op, i) => ({
    id: rows[i].id,
    documentId: op.documentId,
    operation: op.operation,
    state: 'CREATED',
    type,
    createdAt: rows[i].created_at,
    finishedAt: null,
  }));
}

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).byteLength;

/** Items in order, in groups of at most `maxBytes` (by `sizeOf`) and `maxCount`; an item larger than `maxBytes` is a group of its own. */
function groupBySize<T>(items: T[], sizeOf: (item: T) => number, maxBytes: number, maxCount = Infinity): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const bytes = sizeOf(item);
    if (current.length && (size + bytes > maxBytes || current.length === maxCount)) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += bytes;
  }
  if (current.length) groups.push(current);
  return groups;
}

/**
 * Puts operations on the feeding queue in messages under the queue's size limits; `schema` names the field schema
 * their payloads were validated against (`schemaFingerprint`), when they were.
 */
export async function sendOperations(env: Env, appId: number, operations: FeedOperation[], schema?: string): Promise<void> {
  const messages = groupBySize(operations, (op) => byteLength(JSON.stringify(op)) + 1, MAX_MESSAGE_BYTES).map((group) => {
    const body: OperationsMessage = { kind: 'operations', appId, operations: group, ...(schema ? { schema } : {}) };
    return { body, size: byteLength(JSON.stringify(body)) };
  });
  for (const batch of groupBySize(messages, (message) => message.size, MAX_BATCH_BYTES, MAX_BATCH_MESSAGES)) {
    await env.FEEDING_QUEUE.sendBatch(batch.map((message) => ({ body: message.body })));
  }
}

/** Moves entries to a state; terminal states get `finished_at`. Entries already terminal are left alone. */
export async function setStates(db: Db, ids: number[], state: FeedingState, error?: string): Promise<void> {
  if (!ids.length) return;
  const terminal = TERMINAL_FEEDING_STATES.includes(state);
  await db.run(sql`
    UPDATE feeding_operations
    SET state = ${state}, error = ${error ?? null},
        finished_at = ${terminal ? sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` : null},
        payload = ${state === 'CREATED' || state === 'STARTED' ? sql`payload` : null}
    WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
      AND state NOT IN (SELECT value FROM json_each(${JSON.stringify(TERMINAL_FEEDING_STATES)}))`);
}

export async function findQueueEntry(db: Db, appId: number, id: number): Promise<QueueEntry | undefined> {
  const row = await db.query.feedingOperations.findFirst({
    where: and(eq(feedingOperations.appId, appId), eq(feedingOperations.id, id)),
  });
  return row && toQueueEntry(row);
}

/** A page of a search app's queue entries in id order, and the counts by state of the entries after `after`. */
export async function listQueueEntries(
  db: Db,
  appId: number,
  query: Required<Pick<QueueListQuery, 'limit'>> & QueueListQuery,
): Promise<QueueListResponse> {
  const after = query.after ?? 0;
  const rows = await db.query.feedingOperations.findMany({
    where: and(
      eq(feedingOperations.appId, appId),
      gt(feedingOperations.id, after),
      query.state ? eq(feedingOperations.state, query.state) : undefined,
    ),
    orderBy: [asc(feedingOperations.id)],
    limit: query.limit + 1,
  });
  const grouped = await db.all<{ state: FeedingState; n: number }>(sql`
    SELECT state, count(*) AS n FROM feeding_operations WHERE app_id = ${appId} AND id > ${after} GROUP BY state`);
  const counts = Object.fromEntries(FEEDING_STATES.map((state) => [state, 0])) as Record<FeedingState, number>;
  for (const { state, n } of grouped) counts[state] = n;
  const page = rows.slice(0, query.limit);
  return { counts, entries: page.map(toQueueEntry), nextAfter: rows.length > query.limit ? page[page.length - 1].id : null };
}

/** Entries of a cycle still waiting to be processed (neither staged nor terminal). */
export async function pendingInCycle(db: Db, appId: number, cycleId: number): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`
    SELECT count(*) AS n FROM feeding_operations
    WHERE app_id = ${appId} AND cycle_id = ${cycleId} AND state IN ('CREATED', 'STARTED')`);
  return row.n;
}

/** Moves every entry of a cycle from one state to another (PREPARED -> FINISHED at the swap, any -> CANCELED). */
export async function settleCycle(db: Db, appId: number, cycleId: number, from: FeedingState[], to: FeedingState): Promise<void> {
  await db.run(sql`
    UPDATE feeding_operations SET state = ${to}, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), payload = NULL
    WHERE app_id = ${appId} AND cycle_id = ${cycleId}
      AND state IN (SELECT value FROM json_each(${JSON.stringify(from)}))`);
}
