import { Hono } from 'hono';
import { z } from 'zod';
import { requireTenantToken } from '../auth';
import type { AppEnv } from '../../env';
import { ApiError } from '../../errors';
import { findJob, scheduleReindex } from '../../feeding/jobs';
import { withSearchApp } from '../middleware';
import { validate } from '../validate';

/** Schedule feeding job: re-index the stored documents with the current schema, and read its progress. */
export const jobRoutes = new Hono<AppEnv>()
  .put(
    '/:tenant/:code/feeding/_schedule',
    requireTenantToken('feeding', 'WRITE'),
    validate('json', z.record(z.string(), z.unknown())),
    withSearchApp,
    async (c) => c.json({ jobId: await scheduleReindex(c.env, c.var.db, c.var.app), state: 'CREATED' }, 200),
  )
  .get('/:tenant/:code/:jobId', requireTenantToken('feeding', 'READ'), withSearchApp, async (c) => {
    const job = await findJob(c.var.db, c.var.app, c.req.param('jobId'));
    if (!job) throw ApiError.notFound('Job not found');
    return c.json(job, 200);
  });
