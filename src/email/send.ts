import { z } from 'zod';
import { hexEqual, sha256Hex } from '../auth/crypto';
import { createDb } from '../db/client';
import { emailDeliveries } from '../db/schema';
import type { Env } from '../env';
import { ApiError, logError } from '../errors';
import { parseJsonBody } from '../validation';
import { enforceRateLimit } from '../rate-limit';
import { findEmailConfig, MASKED, missingForSend, variablesSchema } from './configs';
import { updateDelivery, type EmailJob } from './deliveries';

export const sendRequestSchema = z
  .object({
    target: z.email('target must be a valid email address').max(320),
    variables: variablesSchema.nullable().optional(),
  })
  .strict();

/** Queue messages are limited to 128 KB; the job stays well below. */
const MAX_JOB_BYTES = 100_000;

export interface SendRequest {
  tenantCode: string;
  configCode: string;
  header: (name: string) => string | undefined;
  /** The parsed JSON body; rejects on malformed JSON. */
  body: () => Promise<unknown>;
}

/**
 * Checks the caller and the request, logs the delivery as `queued` and puts the job on the email queue.
 * Order: wrong key 401 (also for an unknown configuration or one without a key, so strangers cannot tell
 * which configurations exist), incomplete 409, invalid body 400.
 */
export async function queueEmail(env: Env, request: SendRequest): Promise<void> {
  const db = createDb(env.DB);
  const config = await findEmailConfig(db, request.tenantCode, request.configCode);
  const presented = config?.security ? request.header(config.security.header) : undefined;
  // Hashed whatever the configuration, so an unknown one costs the same work as a wrong key.
  const presentedHash = await sha256Hex(presented ?? '');
  if (!config?.security || !presented || !hexEqual(presentedHash, config.security.keyHash)) {
    throw ApiError.unauthorized('Missing or invalid API key');
  }
  await enforceRateLimit(env, config.rateLimit, { kind: 'email', configId: config.id });
  const missing = missingForSend(config);
  if (missing.length) throw ApiError.conflict(`Email configuration is not ready to send; missing: ${missing.join(', ')}`);

  const body = await parseJsonBody(request.body, sendRequestSchema);

  const variables = { ...config.variables, ...(body.variables ?? {}) };
  const job: EmailJob = {
    deliveryId: crypto.randomUUID(),
    configId: config.id,
    target: body.target,
    variables: Object.fromEntries(Object.entries(variables).map(([name, v]) => [name, v.value])),
  };
  if (new TextEncoder().encode(JSON.stringify(job)).byteLength > MAX_JOB_BYTES) {
    throw ApiError.badRequest('Invalid request body', [{ path: 'variables', message: `variables exceed ${MAX_JOB_BYTES} bytes in total` }]);
  }
  await db.insert(emailDeliveries).values({
    id: job.deliveryId,
    configId: config.id,
    target: job.target,
    variables: Object.fromEntries(Object.entries(variables).map(([name, v]) => [name, v.type === 'masked' ? MASKED : v.value])),
    status: 'queued',
  });
  try {
    await env.EMAIL_QUEUE.send(job);
  } catch (error) {
    logError('email not queued', error, { deliveryId: job.deliveryId });
    await updateDelivery(db, job.deliveryId, { status: 'failed', error: 'could not be queued' });
    throw new ApiError(503, 'The email could not be queued; try again');
  }
}
