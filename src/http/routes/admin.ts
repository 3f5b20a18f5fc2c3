import { Hono } from 'hono';
import { z } from 'zod';
import { requireSecret } from '../auth';
import { issueToken, revokeToken } from '../../auth/tokens';
import { requireTenant, upsertTenant } from '../../db/queries';
import type { AppEnv } from '../../env';
import { ApiError } from '../../errors';
import { searchAppInput, searchAppView, upsertSearchApp } from '../../search/search-apps';
import { codeParam } from '../../validation';
import { validate } from '../validate';
import { tenantBody, tokenBody } from '../../contract';

/** Root-token administration: tenants, search apps and tenant tokens (our addition to the interface). */
export const adminRoutes = new Hono<AppEnv>()
  .use('*', requireSecret('ADMIN_TOKEN'))
  .put('/tenants/:tenant', validate('param', z.object({ tenant: codeParam })), validate('json', tenantBody), async (c) => {
    return c.json(await upsertTenant(c.var.db, c.req.valid('param').tenant, c.req.valid('json').name), 200);
  })
  .put(
    '/searchapps/:tenant/:code',
    validate('param', z.object({ tenant: codeParam, code: codeParam })),
    validate('json', searchAppInput),
    async (c) => {
      const { tenant, code } = c.req.valid('param');
      return c.json(searchAppView(await upsertSearchApp(c.var.db, tenant, code, c.req.valid('json'))), 200);
    },
  )
  .post('/tokens/:tenant', validate('param', z.object({ tenant: codeParam })), validate('json', tokenBody), async (c) => {
    const { tenant } = c.req.valid('param');
    const { kind, permission, name } = c.req.valid('json');
    await requireTenant(c.var.db, tenant);
    return c.json(await issueToken(c.var.db, tenant, kind, permission, name), 201);
  })
  .delete('/tokens/:tenant/:id', async (c) => {
    if (!(await revokeToken(c.var.db, c.req.param('tenant'), c.req.param('id')))) {
      throw ApiError.notFound('Token not found');
    }
    return c.body(null, 204);
  });
