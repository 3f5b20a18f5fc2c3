import { Hono } from 'hono';
import { requireTenantToken } from '../auth';
import type { AppEnv } from '../../env';
import { searchAppSchemaInput } from '../../search/field-schema';
import { updateSearchAppSchema } from '../../search/search-apps';
import { withSearchApp } from '../middleware';
import { validate } from '../validate';

/** Update schema replaces the field schema of a search app (a feeding job must follow to re-index); GET reads it back. */
export const schemaRoutes = new Hono<AppEnv>()
  .get('/schema/:tenant/:code', requireTenantToken('admin', 'READ'), withSearchApp, async (c) => c.json({ fields: c.var.app.fields }, 200))
  .put('/schema/:tenant/:code', requireTenantToken('admin', 'WRITE'), validate('json', searchAppSchemaInput), async (c) => {
    const schema = c.req.valid('json');
    await updateSearchAppSchema(c.var.db, c.req.param('tenant'), c.req.param('code'), schema);
    return c.json(schema, 200);
  });
