import { consumeEmail, consumeEmailDeadLetters } from './email/consumer';
import type { Env } from './env';
import { consumeFeeding, consumeFeedingDeadLetters } from './feeding/consumer';
import { createFetch } from './http/app';
import { logError } from './errors';
import { runMaintenance } from './retention';

export { SearchAppObject } from './search/search-app-object';

/** Queue consumers by queue name (see wrangler.toml). */
const consumers: Record<string, (batch: MessageBatch, env: Env, ctx: ExecutionContext) => Promise<void>> = {
  email: consumeEmail,
  'email-dlq': consumeEmailDeadLetters,
  feeding: consumeFeeding,
  'feeding-dlq': consumeFeedingDeadLetters,
};

export default {
  fetch: createFetch(),
  async queue(batch, env, ctx) {
    const consume = consumers[batch.queue];
    if (!consume) {
      logError('no consumer for queue', new Error(batch.queue));
      batch.retryAll();
      return;
    }
    await consume(batch, env, ctx);
  },
  async scheduled(_controller, env) {
    await runMaintenance(env);
  },
} satisfies ExportedHandler<Env>;
