import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { emailDeliveries, type EmailDeliveryStatus } from '../db/schema';

export type EmailDelivery = typeof emailDeliveries.$inferSelect;

/**
 * The body of an `email` (and `email-dlq`) queue message: one delivery, the only place masked variable values
 * exist in clear. The consumer parses every body with it, so a job queued by an older deploy is read by the new code.
 */
export const emailJob = z.object({
  deliveryId: z.string(),
  configId: z.number().int(),
  target: z.string(),
  variables: z.record(z.string(), z.string()),
});
export type EmailJob = z.output<typeof emailJob>;

export async function findDelivery(db: Db, id: string): Promise<EmailDelivery | undefined> {
  return db.query.emailDeliveries.findFirst({ where: eq(emailDeliveries.id, id) });
}

export async function updateDelivery(
  db: Db,
  id: string,
  change: { status: EmailDeliveryStatus; attempts?: number; error?: string | null; sentAt?: string },
): Promise<void> {
  await db
    .update(emailDeliveries)
    .set({ ...change, updatedAt: new Date().toISOString() })
    .where(eq(emailDeliveries.id, id));
}

/** The delivery log of a configuration, newest first. */
export async function listDeliveries(db: Db, configId: number, limit: number) {
  const rows = await db.query.emailDeliveries.findMany({
    where: eq(emailDeliveries.configId, configId),
    orderBy: [desc(emailDeliveries.createdAt), desc(emailDeliveries.id)],
    limit,
  });
  return rows.map(({ configId: _configId, ...delivery }) => delivery);
}
