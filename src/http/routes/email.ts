import { Hono } from 'hono';
import { z } from 'zod';
import { requireSecret } from '../auth';
import type { AppEnv } from '../../env';
import {
  deleteEmailConfig,
  emailConfigInput,
  emailConfigView,
  listEmailConfigs,
  putEmailConfig,
  requireEmailConfig,
} from '../../email/configs';
import { listDeliveries } from '../../email/deliveries';
import { queueEmail } from '../../email/send';
import { validate } from '../validate';
import { codeParam } from '../../validation';

const configPath = z.object({ tenant: codeParam, code: codeParam });
const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).strict();

/** Root-token administration of email configurations and their delivery logs (our addition to the interface). */
export const emailAdminRoutes = new Hono<AppEnv>()
  .use('*', requireSecret('ADMIN_TOKEN'))
  .put('/:tenant/:code', validate('param', configPath), validate('json', emailConfigInput), async (c) => {
    const { tenant, code } = c.req.valid('param');
    return c.json(await putEmailConfig(c.var.db, tenant, code, c.req.valid('json')), 200);
  })
  .get('/:tenant', validate('param', configPath.pick({ tenant: true })), async (c) => {
    const configs = await listEmailConfigs(c.var.db, c.req.valid('param').tenant);
    return c.json({ emailConfigs: configs.map((config) => emailConfigView(config)) }, 200);
  })
  .delete('/:tenant/:code', validate('param', configPath), async (c) => {
    const { tenant, code } = c.req.valid('param');
    await deleteEmailConfig(c.var.db, tenant, code);
    return c.body(null, 204);
  })
  .get('/:tenant/:code', validate('param', configPath), async (c) => {
    const { tenant, code } = c.req.valid('param');
    return c.json(emailConfigView(await requireEmailConfig(c.var.db, tenant, code)), 200);
  })
  .get('/:tenant/:code/deliveries', validate('param', configPath), validate('query', deliveriesQuery), async (c) => {
    const { tenant, code } = c.req.valid('param');
    const db = c.var.db;
    const config = await requireEmailConfig(db, tenant, code);
    return c.json({ deliveries: await listDeliveries(db, config.id, c.req.valid('query').limit) }, 200);
  });

/** Send email: authenticated by the configuration's own API key, answers once the job is queued. */
export const emailSendRoutes = new Hono<AppEnv>().post('/send/:tenantCode/:emailConfigCode', async (c) => {
  await queueEmail(c.env, {
    tenantCode: c.req.param('tenantCode'),
    configCode: c.req.param('emailConfigCode'),
    header: (name) => c.req.header(name),
    body: () => c.req.json(),
  });
  return c.text('OK', 200);
});
