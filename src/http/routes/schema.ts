import { and, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { requireTenantToken } from '../../auth/middleware';
import { createDb } from '../../db/client';
import { requireSearchApp } from '../../db/queries';
import { searchApps } from '../../db/schema';
import type { AppEnv } from '../../env';
import { searchAppSchemaInput } from '../../search/field-schema';
import { validate } from '../validate';

/** Update schema: replaces the field schema of a search app; a feeding job must follow to re-index. */
export const schemaRoutes = new Hono<AppEnv>().put(
  '/schema/:tenant/:code',
  requireTenantToken('admin', 'WRITE'),
  validate('json', searchAppSchemaInput),
  async (c) => {
    const { tenant, code } = c.req.param();
    const schema = c.req.valid('json');
    const db = createDb(c.env.DB);
    await requireSearchApp(db, tenant, code);
    await db
      .update(searchApps)
      .set({ fields: schema.fields, updatedAt: new Date().toISOString() })
      .where(and(eq(searchApps.tenantCode, tenant), eq(searchApps.code, code)));
    return c.json(schema, 200);
  },
);
