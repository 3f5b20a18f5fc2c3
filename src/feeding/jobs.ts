/** Feeding jobs (Schedule feeding job): re-index a search app's stored documents with its current schema. */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { SearchAppRow } from '../db/queries';
import { feedingJobs } from '../db/schema';
import type { Env } from '../env';
import type { ReindexMessage } from './operations';

/** A feeding job as the API answers it. */
export type JobView = Omit<typeof feedingJobs.$inferSelect, 'appId'> & { jobId: string };

/** Records a CREATED job and queues it for the feeding consumer; answers its id. */
export async function scheduleReindex(env: Env, db: Db, app: SearchAppRow): Promise<string> {
  const jobId = crypto.randomUUID();
  await db.insert(feedingJobs).values({ id: jobId, appId: app.id });
  await env.FEEDING_QUEUE.send({ kind: 'reindex', appId: app.id, jobId } satisfies ReindexMessage);
  return jobId;
}

/** A job of the search app, or undefined. */
export async function findJob(db: Db, app: SearchAppRow, jobId: string): Promise<JobView | undefined> {
  const job = await db.query.feedingJobs.findFirst({ where: and(eq(feedingJobs.appId, app.id), eq(feedingJobs.id, jobId)) });
  if (!job) return undefined;
  const { appId: _, ...view } = job;
  return { jobId: view.id, ...view };
}
