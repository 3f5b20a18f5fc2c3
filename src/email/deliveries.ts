import { desc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { emailDeliveries, type EmailDeliveryStatus } from '../db/schema';

export type EmailDelivery = typeof emailDeliveries.$inferSelect;

/** The queue message of one delivery. The only place masked variable values exist in clear. */
export interface EmailJob {
  deliveryId: string;
  configId: number;
  target: string;
  variables: Record<string, string>;
}

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
