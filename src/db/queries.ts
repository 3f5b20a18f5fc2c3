import { and, eq } from 'drizzle-orm';
import { ApiError } from '../http/errors';
import type { Db } from './client';
import { searchApps, tenants } from './schema';

export type Tenant = typeof tenants.$inferSelect;
export type SearchAppRow = typeof searchApps.$inferSelect;

export async function findTenant(db: Db, code: string): Promise<Tenant | undefined> {
  return db.query.tenants.findFirst({ where: eq(tenants.code, code) });
}

export async function requireTenant(db: Db, code: string): Promise<Tenant> {
  const tenant = await findTenant(db, code);
  if (!tenant) throw ApiError.notFound(`Tenant '${code}' not found`);
  return tenant;
}

export async function findSearchApp(db: Db, tenantCode: string, code: string): Promise<SearchAppRow | undefined> {
  return db.query.searchApps.findFirst({
    where: and(eq(searchApps.tenantCode, tenantCode), eq(searchApps.code, code)),
  });
}

/** The search app of a path, or 404 naming what is missing. */
export async function requireSearchApp(db: Db, tenantCode: string, code: string): Promise<SearchAppRow> {
  const app = await findSearchApp(db, tenantCode, code);
  if (app) return app;
  await requireTenant(db, tenantCode);
  throw ApiError.notFound(`Search app '${tenantCode}/${code}' not found`);
}
