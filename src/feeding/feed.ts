/** Feeding documents: one at a time, or many at once (bulk and upload: validate each entry, queue the valid ones in chunks). */
import type { Db } from '../db/client';
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import { ApiError, describeDetails } from '../errors';
import { SearchAppClient } from '../search/search-app-client';
import { payloadSchema, validateEntry, type DocumentOperation, type DocumentType } from './envelopes';
import { acceptOperations, type QueueEntry } from './operations';
import { NO_VALID_ENTRY, type BulkDocumentResult, type BulkFeedingResponse } from '../contract/feeding';

/** Entries queued per D1 insert and queue send. */
const CHUNK = 500;

/** `all`: every entry in order; `errors`: only the rejected ones, each with its position (compact answers for CI). */
export type FeedDetails = 'all' | 'errors';

/**
 * Queues an update of one document: the entry must validate and be an update of `documentId` (a reporting
 * record without `id` takes the path's); anything else is ApiError 400 and nothing is queued.
 */
export async function feedOne(
  env: Env,
  db: Db,
  app: SearchAppRow,
  type: DocumentType,
  documentId: string,
  body: Record<string, unknown>,
): Promise<QueueEntry> {
  const entry = type === 'reporting' && body.id === undefined ? { ...body, id: documentId } : body;
  const result = validateEntry(type, entry, payloadSchema(app.fields));
  if (!result.ok) throw ApiError.badRequest('Invalid document', result.details);
  if (result.value.operation !== 'update') {
    throw ApiError.badRequest('Invalid document', [
      { path: 'header.action', message: "use DELETE to delete; this call takes action 'update'" },
    ]);
  }
  if (result.value.documentId !== documentId) {
    throw ApiError.badRequest('Invalid document', [
      { path: type === 'svc' ? 'header.id' : 'id', message: `must equal the path documentId '${documentId}'` },
    ]);
  }
  const [queued] = await acceptOperations(env, db, app, type, [result.value]);
  return queued;
}

/** Queues the delete of one document; 404 when there is nothing to delete (neither live nor staged by the active cycle). */
export async function deleteOne(env: Env, db: Db, app: SearchAppRow, type: DocumentType, documentId: string): Promise<QueueEntry> {
  if (!(await new SearchAppClient(env, app.tenantCode, app.code).hasDocument(documentId))) {
    throw ApiError.notFound(`Document '${documentId}' not found`);
  }
  const [queued] = await acceptOperations(env, db, app, type, [{ documentId, operation: 'delete' }]);
  return queued;
}

/** Validates every entry and queues the valid ones; each entry's outcome is answered in its position. */
export async function feedMany(
  env: Env,
  db: Db,
  app: SearchAppRow,
  type: DocumentType,
  entries: Iterable<unknown> | AsyncIterable<unknown>,
  details: FeedDetails = 'all',
): Promise<BulkFeedingResponse> {
  const schema = payloadSchema(app.fields);
  const documents: BulkDocumentResult[] = [];
  let pending: Array<{ slot: number; operation: DocumentOperation }> = [];
  let accepted = 0;
  let firstId: number | null = null;
  let lastId: number | null = null;

  const flush = async () => {
    const queued = await acceptOperations(
      env,
      db,
      app,
      type,
      pending.map((p) => p.operation),
    );
    if (details === 'all') {
      queued.forEach((entry, i) => (documents[pending[i].slot] = { documentId: entry.documentId, state: 'CREATED', id: entry.id }));
    }
    for (const entry of queued) {
      firstId = Math.min(firstId ?? entry.id, entry.id);
      lastId = Math.max(lastId ?? entry.id, entry.id);
    }
    accepted += queued.length;
    pending = [];
  };

  let position = 0;
  let rejected = 0;
  const reject = (slot: number, documentId: string | null, error: string) => {
    rejected += 1;
    const result: BulkDocumentResult = { documentId, state: 'ERROR', error };
    if (details === 'all') documents[slot] = result;
    else documents.push({ ...result, position: slot });
  };
  for await (const entry of entries) {
    const slot = position++;
    if (entry instanceof Error) {
      reject(slot, null, entry.message);
      continue;
    }
    const result = validateEntry(type, entry, schema, String(slot));
    if (!result.ok) {
      reject(slot, result.documentId ?? null, describeDetails(result.details));
      continue;
    }
    pending.push({ slot, operation: result.value });
    if (pending.length >= CHUNK) await flush();
  }
  if (pending.length) await flush();

  return {
    message: `${accepted} document${accepted === 1 ? '' : 's'} queued, ${rejected} rejected`,
    statusCode: 200,
    processedValidDocs: accepted > 0,
    accepted,
    rejected,
    firstId,
    lastId,
    documents,
  };
}

/** Rejected entries named in a 400's details; the rest are counted in one more detail. */
const MAX_ERROR_DETAILS = 100;

/**
 * The answer of a bulk or upload, or 400 when entries were sent and none was valid (the interface's
 * "invalid payload"), so `curl --fail` and CI scripts stop; nothing was queued then.
 */
export function requireAnyAccepted(response: BulkFeedingResponse): BulkFeedingResponse {
  if (response.accepted > 0 || response.rejected === 0) return response;
  const rejected = response.documents.map((document, i) => ({
    path: String(document.position ?? i),
    message: document.documentId ? `${document.documentId}: ${document.error}` : (document.error ?? 'invalid'),
  }));
  const details = rejected.slice(0, MAX_ERROR_DETAILS);
  if (rejected.length > details.length)
    details.push({ path: '(more)', message: `${rejected.length - details.length} more entries rejected` });
  throw ApiError.badRequest(NO_VALID_ENTRY, details);
}
