/** Feeding any number of entries as bulk requests of a bounded size, several at a time. */
import type { BulkFeedingResponse, DocumentType } from '../../../src/contract/index.ts';
import { NO_VALID_ENTRY } from '../../../src/contract/messages.ts';
import { EdgeSearchError } from './http.ts';

/** The service's bulk limit is 10,000 entries; smaller chunks keep each answer and retry small. */
export const DEFAULT_CHUNK_SIZE = 1000;
export const DEFAULT_CONCURRENCY = 4;

export interface FeedOptions {
  type?: DocumentType;
  /** Entries per bulk request (1 to 10,000; default 1,000). */
  chunkSize?: number;
  /** Bulk requests in flight at once (default 4). */
  concurrency?: number;
  /** Rejected entries kept in the summary (default 100); all are counted. */
  keepErrors?: number;
  /** Called after each answered chunk with the running totals. */
  onProgress?: (progress: FeedProgress) => void;
}

export interface FeedProgress {
  sent: number;
  accepted: number;
  rejected: number;
}

export interface RejectedEntry {
  /** 0-based place of the entry in what was fed. */
  position: number;
  documentId: string | null;
  error: string;
}

export interface FeedSummary extends FeedProgress {
  /** The first rejected entries with their reasons (at most `keepErrors`). */
  errors: RejectedEntry[];
  /** Lowest and highest queue entry ids accepted: `firstId - 1` as `after` lists exactly this feed's entries and later ones. */
  firstId: number | null;
  lastId: number | null;
}

/** An entry as one NDJSON line: strings are taken as JSON texts already (a line of a file), anything else is serialized. */
function toLine(entry: unknown): string {
  return typeof entry === 'string' ? entry : JSON.stringify(entry);
}

/** The chunk-relative entry numbers that lead each path of an entry's error (`12.payload.name: …`). */
const CHUNK_POSITIONS = /(^|; |: )\d+\.(?=[A-Za-z_])/g;

/** A chunk in which no entry was valid answers 400 listing them: taken as a compact answer with every entry rejected. */
function allRejected(error: unknown, entries: number): BulkFeedingResponse {
  if (!(error instanceof EdgeSearchError) || error.status !== 400 || error.message !== NO_VALID_ENTRY) throw error;
  const documents = error.details
    .filter((detail) => /^\d+$/.test(detail.path))
    .map((detail) => ({
      documentId: null,
      state: 'ERROR' as const,
      position: Number(detail.path),
      error: detail.message.replace(CHUNK_POSITIONS, '$1'),
    }));
  return {
    message: error.message,
    statusCode: 200,
    processedValidDocs: false,
    accepted: 0,
    rejected: entries,
    firstId: null,
    lastId: null,
    documents,
  };
}

/**
 * Sends `entries` through `sendChunk` (one bulk request of NDJSON each), at most `concurrency` at once, and sums
 * the compact answers. Reads the entries only as fast as chunks are answered, so a stream is never held whole.
 */
export async function feedInChunks(
  sendChunk: (ndjson: string) => Promise<BulkFeedingResponse>,
  entries: Iterable<unknown> | AsyncIterable<unknown>,
  options: FeedOptions = {},
): Promise<FeedSummary> {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const keepErrors = options.keepErrors ?? 100;
  const summary: FeedSummary = { sent: 0, accepted: 0, rejected: 0, errors: [], firstId: null, lastId: null };
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;

  const dispatch = (lines: string[], offset: number) => {
    const task = sendChunk(lines.join('\n'))
      .catch((error: unknown) => allRejected(error, lines.length))
      .then((answer) => {
        summary.accepted += answer.accepted;
        summary.rejected += answer.rejected;
        if (answer.firstId !== null) summary.firstId = Math.min(summary.firstId ?? answer.firstId, answer.firstId);
        if (answer.lastId !== null) summary.lastId = Math.max(summary.lastId ?? answer.lastId, answer.lastId);
        for (const document of answer.documents) {
          if (document.state !== 'ERROR' || summary.errors.length >= keepErrors) continue;
          const error = (document.error ?? '').replace(CHUNK_POSITIONS, '$1');
          summary.errors.push({ position: offset + (document.position ?? 0), documentId: document.documentId, error });
        }
        options.onProgress?.({ sent: summary.sent, accepted: summary.accepted, rejected: summary.rejected });
      })
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  let lines: string[] = [];
  let offset = 0;
  for await (const entry of entries) {
    lines.push(toLine(entry));
    if (lines.length < chunkSize) continue;
    dispatch(lines, offset);
    offset += lines.length;
    summary.sent = offset;
    lines = [];
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (failure) break;
  }
  if (lines.length && !failure) {
    dispatch(lines, offset);
    summary.sent = offset + lines.length;
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  summary.errors.sort((a, b) => a.position - b.position);
  return summary;
}
