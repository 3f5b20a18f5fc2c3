import { Hono } from 'hono';
import { z } from 'zod';
import { requireSecret } from '../../auth/middleware';
import { issueToken, revokeToken } from '../../auth/tokens';
import { createDb } from '../../db/client';
import { findSearchApp, requireTenant } from '../../db/queries';
import { searchApps, tenants } from '../../db/schema';
import { embedderInput, embedderView, nextEmbedder } from '../../search/embedding/config';
import type { AppEnv } from '../../env';
import { ApiError } from '../../errors';
import { validate } from '../validate';
import { codeParam } from '../../validation';

const tenantBody = z.object({ name: z.string().min(1).max(200).optional() }).strict();

const sortSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (1 to 64)'),
    field: z.string().min(1),
    direction: z.enum(['asc', 'desc']),
  })
  .strict();

const searchAppBody = z
  .object({
    name: z.string().min(1).max(200).optional(),
    sorts: z
      .array(sortSchema)
      .max(50)
      .refine((sorts) => new Set(sorts.map((s) => s.id)).size === sorts.length, 'sort ids must be unique')
      .optional(),
    embedder: embedderInput.nullable().optional(),
    defaultSemanticRatio: z.number().min(0).max(1).optional(),
  })
  .strict();

const tokenBody = z
  .object({
    kind: z.enum(['admin', 'feeding']),
    permission: z.enum(['READ', 'WRITE']),
    name: z.string().min(1).max(200).optional(),
  })
  .strict();

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
