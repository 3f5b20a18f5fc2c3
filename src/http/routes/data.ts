import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { z } from 'zod';
import { requireTenantToken } from '../auth';
import type { AppEnv } from '../../env';
import { DOCUMENT_TYPES, type DocumentType } from '../../feeding/envelopes';
import { deleteOne, feedMany, feedOne, requireAnyAccepted } from '../../feeding/feed';
import { cancelCycle, finishCycleIfDrained, requestCycleEnd } from '../../feeding/full-feed';
import { findQueueEntry, listQueueEntries, pendingInCycle } from '../../feeding/operations';
import { feedEntries, isNdjson, once, uploadedText } from '../../feeding/upload';
import { ApiError } from '../../errors';
import { withSearchApp } from '../middleware';
import { validate } from '../validate';
import { parseOrThrow } from '../../validation';
import { feedAnswerQuery, queueListQuery } from '../../contract';

/** Entries of one bulk request (body sizes: ../body-limit.ts). */
export const MAX_BULK_ENTRIES = 10_000;

const write = requireTenantToken('feeding', 'WRITE');
const read = requireTenantToken('feeding', 'READ');
const anyObject = z.record(z.string(), z.unknown());

/** The `:type` path parameter as `c.var.documentType`, or 400. */
const documentType = createMiddleware<{ Variables: { documentType: DocumentType } }>(async (c, next) => {
  const type = c.req.param('type');
  const known = DOCUMENT_TYPES.find((name) => name === type);
  if (!known) {
    throw ApiError.badRequest(`Unsupported document type '${type}'`, [
      { path: 'type', message: `expected one of ${DOCUMENT_TYPES.join(', ')}` },
    ]);
  }
  c.set('documentType', known);
  await next();
});

const bulkArray = z.array(z.unknown()).max(MAX_BULK_ENTRIES, `a bulk holds at most ${MAX_BULK_ENTRIES} entries`);

/**
 * The entries of a bulk body as `c.var.entries`: a JSON array, or NDJSON (`application/x-ndjson`, one entry a line;
 * a broken line is one rejected entry).
 */
const bulkBody = createMiddleware<{ Variables: { entries: unknown[] } }>(async (c, next) => {
  const text = new TextDecoder().decode(await c.req.arrayBuffer());
  let entries: unknown[];
  if (isNdjson(c.req.header('Content-Type'))) {
    entries = [];
    for await (const entry of feedEntries(once(text))) entries.push(entry);
  } else {
    // Entries are checked one by one later (reserved keys included): one bad entry is one rejected entry, not a 400.
    try {
      entries = JSON.parse(text);
    } catch {
      throw ApiError.badRequest('Malformed JSON in request body');
    }
  }
  c.set('entries', parseOrThrow(bulkArray, entries));
  await next();
});

/** Feeding: documents, bulk, upload, full-feed cycles and queue entries (feeding token). */
export const dataRoutes = new Hono<AppEnv>()
  .post('/bulk/:type/:tenant/:code', write, validate('query', feedAnswerQuery), bulkBody, documentType, withSearchApp, async (c) => {
    const answer = await feedMany(c.env, c.var.db, c.var.app, c.var.documentType, c.var.entries, c.req.valid('query').details);
    return c.json(requireAnyAccepted(answer), 200);
  })
  .post('/upload/:type/:tenant/:code', write, validate('query', feedAnswerQuery), documentType, withSearchApp, async (c) => {
    if (!c.req.raw.body) throw ApiError.badRequest('The upload has no body', [{ path: 'file', message: 'required' }]);
    const text = uploadedText(c.req.raw.body, c.req.header('Content-Type') ?? '');
    const answer = await feedMany(c.env, c.var.db, c.var.app, c.var.documentType, feedEntries(text), c.req.valid('query').details);
    return c.json(requireAnyAccepted(answer), 200);
  })
  .post('/fullfeed/start/:tenant/:code', write, validate('json', anyObject), withSearchApp, async (c) => {
    const cycle = await c.var.searchApp.startFullFeed(c.var.app.shards);
    return c.json({ message: 'Full feed started', cycleId: cycle.id, state: cycle.state, startedAt: cycle.startedAt }, 200);
  })
  .post('/fullfeed/end/:tenant/:code', write, validate('json', anyObject), withSearchApp, async (c) => {
    const cycle = await requestCycleEnd(c.var.db, c.var.app, c.var.searchApp);
    const swapped = await finishCycleIfDrained(c.env, c.var.db, c.var.app, cycle.id);
    return c.json(
      swapped
        ? { message: 'Full feed finished; the index was swapped', cycleId: cycle.id, state: 'FINISHED' }
        : { message: 'Full feed ending; the index is swapped once its documents are processed', cycleId: cycle.id, state: 'ENDING' },
      200,
    );
  })
  .post('/fullfeed/cancel/:tenant/:code', write, withSearchApp, async (c) => {
    const cycle = await c.var.searchApp.cancelFullFeed();
    await cancelCycle(c.var.db, c.var.app, cycle.id);
    return c.json({ message: 'Full feed cancelled; the live index is unchanged', cycleId: cycle.id, state: 'CANCELED' }, 200);
  })
  .get('/fullfeed/status/:tenant/:code', read, withSearchApp, async (c) => {
    const status = await c.var.searchApp.fullFeedStatus();
    return c.json(
      {
        active: status.active,
        cycleId: status.cycle?.id ?? status.lastFailed?.id ?? null,
        state: status.cycle?.state ?? (status.lastFailed ? 'FAILED' : 'NONE'),
        ...(status.lastFailed && !status.cycle ? { failedAt: status.lastFailed.failedAt, reason: status.lastFailed.reason } : {}),
        startedAt: status.cycle?.startedAt ?? null,
        endRequestedAt: status.cycle?.endRequestedAt ?? null,
        stagedDocuments: status.stagedDocuments,
        pendingOperations: status.cycle ? await pendingInCycle(c.var.db, c.var.app.id, status.cycle.id) : 0,
        liveDocuments: status.liveDocuments,
      },
      200,
    );
  })
  .get('/queue/:tenant/:code', read, validate('query', queueListQuery), withSearchApp, async (c) =>
    c.json(await listQueueEntries(c.var.db, c.var.app.id, c.req.valid('query')), 200),
  )
  .get(
    '/queue/:tenant/:code/:id',
    read,
    validate('param', z.object({ id: z.coerce.number().int().positive() }).loose()),
    withSearchApp,
    async (c) => {
      const entry = await findQueueEntry(c.var.db, c.var.app.id, c.req.valid('param').id);
      if (!entry) throw ApiError.notFound('Feeding queue entry not found');
      return c.json(entry, 200);
    },
  )
  .post('/:type/:tenant/:code/:documentId', write, validate('json', anyObject), documentType, withSearchApp, async (c) => {
    const { db, app, documentType } = c.var;
    return c.json(await feedOne(c.env, db, app, documentType, c.req.param('documentId'), c.req.valid('json')), 200);
  })
  .delete('/:type/:tenant/:code/:documentId', write, documentType, withSearchApp, async (c) =>
    c.json(await deleteOne(c.env, c.var.db, c.var.app, c.var.documentType, c.req.param('documentId')), 200),
  )
  .get('/:tenant/:code/:documentId', read, withSearchApp, async (c) => {
    const documentId = c.req.param('documentId');
    const payload = await c.var.searchApp.document(documentId);
    if (!payload) throw ApiError.notFound(`Document '${documentId}' not found`);
    return c.json([{ id: documentId, ...payload }], 200);
  });
