/** Feeding requests and answers: documents, bulk and upload results, queue entries, full feeds, jobs. */
import { z } from 'zod';

export { NO_VALID_ENTRY } from './messages';

export const DOCUMENT_TYPES = ['svc', 'reporting'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const FEEDING_STATES = ['CREATED', 'STARTED', 'PREPARED', 'FINISHED', 'ERROR', 'IGNORED', 'CANCELED'] as const;
export type FeedingState = (typeof FEEDING_STATES)[number];
/** States a feeding queue entry never leaves. */
export const TERMINAL_FEEDING_STATES: readonly FeedingState[] = ['FINISHED', 'ERROR', 'IGNORED', 'CANCELED'];

const documentId = z.string().min(1).max(512);

/** Format type `svc`: a header naming the document and action, and the payload of an update. */
export const svcEntry = z.object({
  header: z.object({ id: documentId, action: z.enum(['update', 'delete']) }),
  payload: z.record(z.string(), z.unknown()).optional(),
});

/** Format type `reporting`: a flat record, always an update. */
export const reportingEntry = z.looseObject({ id: documentId });

export type SvcEntry = z.input<typeof svcEntry>;
export type ReportingEntry = z.input<typeof reportingEntry>;

/** `?details=`: `all` answers every entry (default), `errors` only the rejected ones beside the counts. */
export const feedAnswerQuery = z.object({ details: z.enum(['all', 'errors']).default('all') });

export const bulkDocumentResult = z.object({
  documentId: z.string().nullable(),
  state: z.enum(['CREATED', 'ERROR']),
  id: z.number().int().optional().describe('the feeding queue entry of an accepted document'),
  position: z.number().int().optional().describe('0-based place of the entry in the request (with details=errors)'),
  error: z.string().optional(),
});

export const bulkFeedingResponse = z.object({
  message: z.string(),
  statusCode: z.literal(200),
  processedValidDocs: z.boolean(),
  accepted: z.number().int(),
  rejected: z.number().int(),
  firstId: z.number().int().nullable().describe('the lowest queue entry id accepted by this request'),
  lastId: z.number().int().nullable().describe('the highest queue entry id accepted by this request'),
  documents: z.array(bulkDocumentResult).describe('every entry in order, or only the rejected ones with details=errors'),
});

export const queueEntry = z.object({
  id: z.number().int(),
  documentId: z.string(),
  operation: z.enum(['update', 'delete']),
  state: z.enum(FEEDING_STATES),
  type: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable().optional(),
});

export const queueListQuery = z.object({
  state: z.enum(FEEDING_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  after: z.coerce.number().int().min(0).optional().describe("answer entries with an id above this one (the previous page's nextAfter)"),
});

export const queueListResponse = z.object({
  counts: z.record(z.enum(FEEDING_STATES), z.number().int()).describe('entries by state (every state, those after `after` when given)'),
  entries: z.array(queueEntry),
  nextAfter: z.number().int().nullable().describe('pass as after= for the next page; null on the last page'),
});

export const fullFeedAnswer = z.object({
  message: z.string(),
  cycleId: z.number().int(),
  state: z.enum(['ACTIVE', 'ENDING', 'FINISHED', 'CANCELED']),
  startedAt: z.string().optional(),
});

export const fullFeedStatus = z.object({
  active: z.boolean(),
  cycleId: z.number().int().nullable(),
  state: z.enum(['NONE', 'ACTIVE', 'ENDING', 'FINISHED', 'CANCELED']),
  startedAt: z.string().nullable(),
  endRequestedAt: z.string().nullable(),
  stagedDocuments: z.number().int(),
  pendingOperations: z.number().int(),
  liveDocuments: z.number().int(),
});

export const JOB_STATES = ['CREATED', 'STARTED', 'FINISHED', 'ERROR'] as const;

export const jobCreated = z.object({ jobId: z.string(), state: z.literal('CREATED') });

export const job = z.object({
  jobId: z.string(),
  id: z.string(),
  state: z.enum(JOB_STATES),
  processed: z.number().int(),
  total: z.number().int().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

export type BulkDocumentResult = z.output<typeof bulkDocumentResult>;
export type BulkFeedingResponse = z.output<typeof bulkFeedingResponse>;
export type QueueEntry = z.output<typeof queueEntry>;
/** Query of the queue listing, as a caller writes it. */
export type QueueListQuery = Partial<z.output<typeof queueListQuery>>;
export type QueueListResponse = z.output<typeof queueListResponse>;
export type FullFeedAnswer = z.output<typeof fullFeedAnswer>;
export type FullFeedStatus = z.output<typeof fullFeedStatus>;
export type Job = z.output<typeof job>;
export type JobCreated = z.output<typeof jobCreated>;
