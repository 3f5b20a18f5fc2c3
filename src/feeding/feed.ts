/** Feeding documents: one at a time, or many at once (bulk and upload: validate each entry, queue the valid ones in chunks). */
import type { Db } from '../db/client';
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import { ApiError, describeDetails } from '../errors';
import { SearchAppClient } from '../search/search-app-client';
import { payloadSchema, validateEntry, type DocumentOperation, type DocumentType } from './envelopes';
import { acceptOperations, type QueueEntry } from './operations';

/** Entries queued per D1 insert and queue send. */
const CHUNK = 500;

export interface BulkDocumentResult {
  documentId: string | null;
  state: 'CREATED' | 'ERROR';
  /** Feeding queue entry id of an accepted document. */
  id?: number;
  error?: string;
}

export interface BulkFeedingResponse {
  message: string;
  statusCode: 200;
  processedValidDocs: boolean;
  documents: BulkDocumentResult[];
}

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
): Promise<BulkFeedingResponse> {
  const schema = payloadSchema(app.fields);
  const documents: BulkDocumentResult[] = [];
  let pending: Array<{ slot: number; operation: DocumentOperation }> = [];
  let accepted = 0;

  const flush = async () => {
    const queued = await acceptOperations(
      env,
      db,
      app,
      type,
      pending.map((p) => p.operation),
    );
    queued.forEach((entry, i) => (documents[pending[i].slot] = { documentId: entry.documentId, state: 'CREATED', id: entry.id }));
    accepted += queued.length;
    pending = [];
  };

  let position = 0;
  for await (const entry of entries) {
    const slot = position++;
    if (entry instanceof Error) {
      documents[slot] = { documentId: null, state: 'ERROR', error: entry.message };
      continue;
    }
    const result = validateEntry(type, entry, schema, String(slot));
    if (!result.ok) {
      documents[slot] = { documentId: result.documentId ?? null, state: 'ERROR', error: describeDetails(result.details) };
      continue;
    }
    pending.push({ slot, operation: result.value });
    if (pending.length >= CHUNK) await flush();
  }
  if (pending.length) await flush();

  const rejected = documents.length - accepted;
  return {
    message: `${accepted} document${accepted === 1 ? '' : 's'} queued, ${rejected} rejected`,
    statusCode: 200,
    processedValidDocs: accepted > 0,
    documents,
  };
}
