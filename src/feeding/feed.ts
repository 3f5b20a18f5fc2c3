/** Feeding many documents at once (bulk and upload): validate each entry, queue the valid ones in chunks. */
import type { Db } from '../db/client';
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import { describeDetails, payloadSchema, validateEntry, type DocumentOperation, type DocumentType } from './envelopes';
import { acceptOperations } from './operations';

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
