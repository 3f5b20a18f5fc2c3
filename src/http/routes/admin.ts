import { Hono } from 'hono';
import { z } from 'zod';
import { requireSecret } from '../auth';
import { issueToken, listTokens, revokeToken } from '../../auth/tokens';
import { listTenants, requireSearchApp, requireTenant, upsertTenant } from '../../db/queries';
import type { AppEnv } from '../../env';
import { ApiError } from '../../errors';
import {
  deleteSearchApp,
  deleteTenant,
  dropUnlistedReplicas,
  listSearchApps,
  searchAppInput,
  searchAppView,
  upsertSearchApp,
} from '../../search/search-apps';
import { codeParam } from '../../validation';
import { validate } from '../validate';
import { tenantBody, tokenBody } from '../../contract';

const tenantPath = z.object({ tenant: codeParam });
const appPath = z.object({ tenant: codeParam, code: codeParam });

/** Root-token administration: tenants, search apps and tenant tokens (our addition to the interface). */
export const adminRoutes = new Hono<AppEnv>()
  .use('*', requireSecret('ADMIN_TOKEN'))
  .get('/tenants', async (c) => c.json({ tenants: await listTenants(c.var.db) }, 200))
  .get('/tenants/:tenant', validate('param', tenantPath), async (c) =>
    c.json(await requireTenant(c.var.db, c.req.valid('param').tenant), 200),
  )
  .delete('/tenants/:tenant', validate('param', tenantPath), async (c) => {
    await deleteTenant(c.env, c.var.db, c.req.valid('param').tenant);
    return c.body(null, 204);
  })
  .put('/tenants/:tenant', validate('param', tenantPath), validate('json', tenantBody), async (c) => {
    return c.json(await upsertTenant(c.var.db, c.req.valid('param').tenant, c.req.valid('json').name), 200);
  })
  .get('/searchapps/:tenant', validate('param', tenantPath), async (c) => {
    const apps = await listSearchApps(c.var.db, c.req.valid('param').tenant);
    return c.json({ searchApps: apps.map(searchAppView) }, 200);
  })
  .get('/searchapps/:tenant/:code', validate('param', appPath), async (c) => {
    const { tenant, code } = c.req.valid('param');
    return c.json(searchAppView(await requireSearchApp(c.var.db, tenant, code)), 200);
  })
  .delete('/searchapps/:tenant/:code', validate('param', appPath), async (c) => {
    const { tenant, code } = c.req.valid('param');
    await deleteSearchApp(c.env, c.var.db, tenant, code);
    return c.body(null, 204);
  })
  .put('/searchapps/:tenant/:code', validate('param', appPath), validate('json', searchAppInput), async (c) => {
    const { tenant, code } = c.req.valid('param');
    const changes = c.req.valid('json');
    const app = await upsertSearchApp(c.var.db, tenant, code, changes);
    if (changes.replicas) await dropUnlistedReplicas(c.env, app);
    return c.json(searchAppView(app), 200);
  })
  .get('/tokens/:tenant', validate('param', tenantPath), async (c) => {
    const { tenant } = c.req.valid('param');
    await requireTenant(c.var.db, tenant);
    return c.json({ tokens: await listTokens(c.var.db, tenant) }, 200);
  })
  .post('/tokens/:tenant', validate('param', tenantPath), validate('json', tokenBody), async (c) => {
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
