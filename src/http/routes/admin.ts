import { Hono } from 'hono';
import { z } from 'zod';
import { requireSecret } from '../../auth/middleware';
import { issueToken, revokeToken } from '../../auth/tokens';
import { createDb } from '../../db/client';
import { findSearchApp, requireTenant } from '../../db/queries';
import { searchApps, tenants } from '../../db/schema';
import { embedderView, nextEmbedder } from '../../search/embedding/config';
import type { AppEnv } from '../../env';
import { ApiError } from '../../errors';
import { validate } from '../validate';
import { codeParam } from '../../validation';
import { searchAppBody, tenantBody, tokenBody } from '../../contract';

/** Root-token administration: tenants, search apps and tenant tokens (our addition to the interface). */
export const adminRoutes = new Hono<AppEnv>()
  .use('*', requireSecret('ADMIN_TOKEN'))
  .put('/tenants/:tenant', validate('param', z.object({ tenant: codeParam })), validate('json', tenantBody), async (c) => {
    const { tenant } = c.req.valid('param');
    const { name } = c.req.valid('json');
    const [row] = await createDb(c.env.DB)
      .insert(tenants)
      .values({ code: tenant, name: name ?? tenant })
      .onConflictDoUpdate({
        target: tenants.code,
        set: { ...(name ? { name } : {}), updatedAt: new Date().toISOString() },
      })
      .returning();
    return c.json(row, 200);
  })
  .put(
    '/searchapps/:tenant/:code',
    validate('param', z.object({ tenant: codeParam, code: codeParam })),
    validate('json', searchAppBody),
    async (c) => {
      const { tenant, code } = c.req.valid('param');
      const body = c.req.valid('json');
      const db = createDb(c.env.DB);
      await requireTenant(db, tenant);
      const existing = await findSearchApp(db, tenant, code);
      const embedder = nextEmbedder(body.embedder, existing?.embedder ?? null);
      const [row] = await db
        .insert(searchApps)
        .values({
          tenantCode: tenant,
          code,
          name: body.name ?? existing?.name ?? code,
          sorts: body.sorts ?? [],
          embedder,
          defaultSemanticRatio: body.defaultSemanticRatio,
        })
        .onConflictDoUpdate({
          target: [searchApps.tenantCode, searchApps.code],
          set: {
            ...(body.name ? { name: body.name } : {}),
            ...(body.sorts ? { sorts: body.sorts } : {}),
            ...(body.embedder !== undefined ? { embedder } : {}),
            ...(body.defaultSemanticRatio !== undefined ? { defaultSemanticRatio: body.defaultSemanticRatio } : {}),
            updatedAt: new Date().toISOString(),
          },
        })
        .returning();
      return c.json({ ...row, embedder: embedderView(row.embedder) }, 200);
    },
  )
  .post('/tokens/:tenant', validate('param', z.object({ tenant: codeParam })), validate('json', tokenBody), async (c) => {
    const { tenant } = c.req.valid('param');
    const { kind, permission, name } = c.req.valid('json');
    const db = createDb(c.env.DB);
    await requireTenant(db, tenant);
    return c.json(await issueToken(db, tenant, kind, permission, name), 201);
  })
  .delete('/tokens/:tenant/:id', async (c) => {
    if (!(await revokeToken(createDb(c.env.DB), c.req.param('tenant'), c.req.param('id')))) {
      throw ApiError.notFound('Token not found');
    }
    return c.body(null, 204);
  });
