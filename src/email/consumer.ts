import { eq } from 'drizzle-orm';
import { createDb, type Db } from '../db/client';
import { emailConfigs } from '../db/schema';
import { numberVar, type Env } from '../env';
import { logError } from '../errors';
import { messageBody } from '../validation';
import { missingForSend } from './configs';
import { emailJob, findDelivery, updateDelivery, type EmailJob } from './deliveries';
import { createProvider, DeliveryError } from './providers';
import { renderEmail } from './templates';

const DEFAULT_RETRY_BASE_DELAY_SECONDS = 10;
const MAX_RETRY_DELAY_SECONDS = 15 * 60;

/** Exponential backoff: base, 2×base, 4×base … capped at 15 minutes; the base comes from EMAIL_RETRY_BASE_DELAY_SECONDS. */
export function retryDelaySeconds(env: Env, attempts: number): number {
  const base = numberVar(env.EMAIL_RETRY_BASE_DELAY_SECONDS, DEFAULT_RETRY_BASE_DELAY_SECONDS);
  return Math.min(base * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_SECONDS);
}

/** Answers whether the job is finished (sent, or failed for good); false asks for a retry. */
async function deliver(db: Db, job: EmailJob, attempts: number): Promise<boolean> {
  const delivery = await findDelivery(db, job.deliveryId);
  // Gone with its configuration, or a redelivery of a finished job.
  if (!delivery || delivery.status === 'sent' || delivery.status === 'failed') return true;
  await updateDelivery(db, job.deliveryId, { status: 'sending', attempts });

  const config = await db.query.emailConfigs.findFirst({ where: eq(emailConfigs.id, job.configId) });
  const missing = config ? missingForSend(config) : ['configuration'];
  // missingForSend names any of these that is absent; the test narrows their types.
  if (!config?.from || !config.subject || !config.provider || missing.length) {
    await updateDelivery(db, job.deliveryId, { status: 'failed', error: `configuration no longer ready; missing: ${missing.join(', ')}` });
    return true;
  }
  try {
    const rendered = renderEmail({ subject: config.subject, html: config.html, text: config.text }, job.variables);
    await createProvider(config.provider).send({ from: config.from, to: job.target, ...rendered });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof DeliveryError && error.permanent) {
      await updateDelivery(db, job.deliveryId, { status: 'failed', error: reason });
      return true;
    }
    await updateDelivery(db, job.deliveryId, { status: 'queued', error: reason });
    return false;
  }
  await updateDelivery(db, job.deliveryId, { status: 'sent', sentAt: new Date().toISOString() });
  return true;
}

/** Consumer of the `email` queue: renders and delivers; transient failures retry with backoff, then go to `email-dlq`. */
export async function consumeEmail(batch: MessageBatch, env: Env): Promise<void> {
  const db = createDb(env.DB);
  await Promise.all(
    batch.messages.map(async (message) => {
      const job = messageBody(emailJob, message);
      if (!job) return;
      try {
        if (await deliver(db, job, message.attempts)) return message.ack();
      } catch (error) {
        logError('email delivery crashed', error, { deliveryId: job.deliveryId });
      }
      message.retry({ delaySeconds: retryDelaySeconds(env, message.attempts) });
    }),
  );
}

/** Consumer of `email-dlq`: jobs that used up their retries are logged as failed. */
export async function consumeEmailDeadLetters(batch: MessageBatch, env: Env): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const job = messageBody(emailJob, message);
    if (!job) continue;
    const delivery = await findDelivery(db, job.deliveryId);
    if (delivery && delivery.status !== 'sent' && delivery.status !== 'failed') {
      const error = `gave up after ${delivery.attempts} attempts${delivery.error ? `: ${delivery.error}` : ''}`;
      await updateDelivery(db, delivery.id, { status: 'failed', error });
    }
    message.ack();
  }
}
