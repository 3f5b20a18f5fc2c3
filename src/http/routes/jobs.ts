import { and, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { z } from 'zod';
import { requireTenantToken } from '../../auth/middleware';
import { createDb } from '../../db/client';
import { requireSearchApp } from '../../db/queries';
import { feedingJobs } from '../../db/schema';
import type { AppEnv } from '../../env';
import type { ReindexMessage } from '../../feeding/operations';
import { ApiError } from '../../errors';
import { validate } from '../validate';

/** Schedule feeding job: re-index the stored documents with the current schema, and read its progress. */
export const jobRoutes = new Hono<AppEnv>()
  .put(
    '/:tenant/:code/feeding/_schedule',
    requireTenantToken('feeding', 'WRITE'),
    validate('json', z.record(z.string(), z.unknown())),
    async (c) => {
      const db = createDb(c.env.DB);
      const app = await requireSearchApp(db, c.req.param('tenant'), c.req.param('code'));
      const jobId = crypto.randomUUID();
      await db.insert(feedingJobs).values({ id: jobId, appId: app.id });
      await c.env.FEEDING_QUEUE.send({ kind: 'reindex', appId: app.id, jobId } satisfies ReindexMessage);
      return c.json({ jobId, state: 'CREATED' }, 200);
    },
  )
  .get('/:tenant/:code/:jobId', requireTenantToken('feeding', 'READ'), async (c) => {
    const db = createDb(c.env.DB);
    const app = await requireSearchApp(db, c.req.param('tenant'), c.req.param('code'));
    const job = await db.query.feedingJobs.findFirst({
      where: and(eq(feedingJobs.appId, app.id), eq(feedingJobs.id, c.req.param('jobId'))),
    });
    if (!job) throw ApiError.notFound('Job not found');
    const { appId: _, ...view } = job;
    return c.json({ jobId: view.id, ...view }, 200);
  });
