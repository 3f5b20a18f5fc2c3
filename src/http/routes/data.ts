import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { requireTenantToken } from '../../auth/middleware';
import { createDb } from '../../db/client';
import { requireSearchApp } from '../../db/queries';
import type { AppEnv } from '../../env';
import { DOCUMENT_TYPES, payloadSchema, validateEntry, type DocumentType } from '../../feeding/envelopes';
import { feedMany, requireAnyAccepted } from '../../feeding/feed';
import { cancelCycle, finishCycleIfDrained } from '../../feeding/full-feed';
import { acceptOperations, findQueueEntry, listQueueEntries, pendingInCycle } from '../../feeding/operations';
import { feedEntries, isNdjson, once, uploadedText } from '../../feeding/upload';
import { searchAppStub } from '../../search/search-app-object';
import { ApiError } from '../../errors';
import { unwrap } from '../outcome';
import { validate } from '../validate';
import { parseJsonBody, parseOrThrow } from '../../validation';
import { feedAnswerQuery, queueListQuery } from '../../contract';

/** Request size limits (see README, Feeding limits). */
export const MAX_SINGLE_BODY_BYTES = 1 << 20;
export const MAX_BULK_BODY_BYTES = 32 << 20;
export const MAX_BULK_ENTRIES = 10_000;

const write = requireTenantToken('feeding', 'WRITE');
const read = requireTenantToken('feeding', 'READ');
const anyObject = z.record(z.string(), z.unknown());

function documentType(c: Context<AppEnv>): DocumentType {
  const type = c.req.param('type');
  if (!DOCUMENT_TYPES.includes(type as DocumentType)) {
    throw ApiError.badRequest(`Unsupported document type '${type}'`, [
      { path: 'type', message: `expected one of ${DOCUMENT_TYPES.join(', ')}` },
    ]);
  }
  return type as DocumentType;
}

function limitBody(c: Context<AppEnv>, max: number): void {
  const length = Number(c.req.header('Content-Length') ?? 0);
  if (length > max) throw new ApiError(413, `Request body is ${length} bytes; at most ${max}`);
}

const bulkArray = z.array(z.unknown()).max(MAX_BULK_ENTRIES, `a bulk holds at most ${MAX_BULK_ENTRIES} entries`);

/** The entries of a bulk body: a JSON array, or NDJSON (`application/x-ndjson`, one entry a line; a broken line is one rejected entry). */
async function bulkEntries(c: Context<AppEnv>): Promise<unknown[]> {
  if (!isNdjson(c.req.header('Content-Type'))) return parseJsonBody(() => c.req.json(), bulkArray);
  const entries: unknown[] = [];
  for await (const entry of feedEntries(once(new TextDecoder().decode(await c.req.arrayBuffer())))) entries.push(entry);
  return parseOrThrow(bulkArray, entries);
}

async function context(c: Context<AppEnv>) {
  const db = createDb(c.env.DB);
  const app = await requireSearchApp(db, c.req.param('tenant')!, c.req.param('code')!);
  return { db, app, stub: searchAppStub(c.env, app.tenantCode, app.code) };
}

/** Feeding: documents, bulk, upload, full-feed cycles and queue entries (feeding token). */
export const dataRoutes = new Hono<AppEnv>()
  .post(
    '/bulk/:type/:tenant/:code',
    write,
    async (c, next) => {
      limitBody(c, MAX_BULK_BODY_BYTES);
      await next();
    },
    validate('query', feedAnswerQuery),
    async (c) => {
      const type = documentType(c);
      const entries = await bulkEntries(c);
      const { db, app } = await context(c);
      return c.json(requireAnyAccepted(await feedMany(c.env, db, app, type, entries, c.req.valid('query').details)), 200);
    },
  )
  .post('/upload/:type/:tenant/:code', write, validate('query', feedAnswerQuery), async (c) => {
    const type = documentType(c);
    const { db, app } = await context(c);
    if (!c.req.raw.body) throw ApiError.badRequest('The upload has no body', [{ path: 'file', message: 'required' }]);
    const text = uploadedText(c.req.raw.body, c.req.header('Content-Type') ?? '');
    return c.json(requireAnyAccepted(await feedMany(c.env, db, app, type, feedEntries(text), c.req.valid('query').details)), 200);
  })
  .post('/fullfeed/start/:tenant/:code', write, validate('json', anyObject), async (c) => {
    const { stub } = await context(c);
    const cycle = unwrap(await stub.startFullFeed());
    return c.json({ message: 'Full feed started', cycleId: cycle.id, state: cycle.state, startedAt: cycle.startedAt }, 200);
  })
  .post('/fullfeed/end/:tenant/:code', write, validate('json', anyObject), async (c) => {
    const { db, app, stub } = await context(c);
    const cycle = unwrap(await stub.requestFullFeedEnd());
    const swapped = await finishCycleIfDrained(c.env, db, app, cycle.id);
    return c.json(
      swapped
        ? { message: 'Full feed finished; the index was swapped', cycleId: cycle.id, state: 'FINISHED' }
        : { message: 'Full feed ending; the index is swapped once its documents are processed', cycleId: cycle.id, state: 'ENDING' },
      200,
    );
  })
  .post('/fullfeed/cancel/:tenant/:code', write, async (c) => {
    const { db, app, stub } = await context(c);
    const cycle = unwrap(await stub.cancelFullFeed());
    await cancelCycle(db, app, cycle.id);
    return c.json({ message: 'Full feed cancelled; the live index is unchanged', cycleId: cycle.id, state: 'CANCELED' }, 200);
  })
  .get('/fullfeed/status/:tenant/:code', read, async (c) => {
    const { db, app, stub } = await context(c);
    const status = await stub.fullFeedStatus();
    return c.json(
      {
        active: status.active,
        cycleId: status.cycle?.id ?? null,
        state: status.cycle?.state ?? 'NONE',
        startedAt: status.cycle?.startedAt ?? null,
        endRequestedAt: status.cycle?.endRequestedAt ?? null,
        stagedDocuments: status.stagedDocuments,
        pendingOperations: status.cycle ? await pendingInCycle(db, app.id, status.cycle.id) : 0,
        liveDocuments: status.liveDocuments,
      },
      200,
    );
  })
  .get('/queue/:tenant/:code', read, validate('query', queueListQuery), async (c) => {
    const { db, app } = await context(c);
    return c.json(await listQueueEntries(db, app.id, c.req.valid('query')), 200);
  })
  .get('/queue/:tenant/:code/:id', read, validate('param', z.object({ id: z.coerce.number().int().positive() }).loose()), async (c) => {
    const { db, app } = await context(c);
    const entry = await findQueueEntry(db, app.id, c.req.valid('param').id);
    if (!entry) throw ApiError.notFound('Feeding queue entry not found');
    return c.json(entry, 200);
  })
  .post(
    '/:type/:tenant/:code/:documentId',
    write,
    async (c, next) => {
      limitBody(c, MAX_SINGLE_BODY_BYTES);
      await next();
    },
    validate('json', anyObject),
    async (c) => {
      const type = documentType(c);
      const { db, app } = await context(c);
      const documentId = c.req.param('documentId');
      const body = c.req.valid('json');
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
      const [entry0] = await acceptOperations(c.env, db, app, type, [result.value]);
      return c.json(entry0, 200);
    },
  )
  .delete('/:type/:tenant/:code/:documentId', write, async (c) => {
    const type = documentType(c);
    const { db, app, stub } = await context(c);
    const documentId = c.req.param('documentId');
    if (!(await stub.hasDocument(documentId))) throw ApiError.notFound(`Document '${documentId}' not found`);
    const [entry] = await acceptOperations(c.env, db, app, type, [{ documentId, operation: 'delete' }]);
    return c.json(entry, 200);
  })
  .get('/:tenant/:code/:documentId', read, async (c) => {
    const { stub } = await context(c);
    const documentId = c.req.param('documentId');
    const payload = await stub.document(documentId);
    if (!payload) throw ApiError.notFound(`Document '${documentId}' not found`);
    return c.json([{ id: documentId, ...(payload as Record<string, unknown>) }], 200);
  });
