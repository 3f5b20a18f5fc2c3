import { and, asc, eq } from 'drizzle-orm';
import { BoundedMemo } from '../bounded-memo';
import { ApiError } from '../errors';
import type { Db } from './client';
import { searchApps, tenants } from './schema';

export type Tenant = typeof tenants.$inferSelect;
export type SearchAppRow = typeof searchApps.$inferSelect;

export function findSearchAppById(db: Db, appId: number): Promise<SearchAppRow | undefined> {
  return db.query.searchApps.findFirst({ where: eq(searchApps.id, appId) });
}

export async function findTenant(db: Db, code: string): Promise<Tenant | undefined> {
  return db.query.tenants.findFirst({ where: eq(tenants.code, code) });
}

/** Creates a tenant (named after its code unless a name is given) or renames it. */
export async function upsertTenant(db: Db, code: string, name?: string): Promise<Tenant> {
  const [row] = await db
    .insert(tenants)
    .values({ code, name: name ?? code })
    .onConflictDoUpdate({ target: tenants.code, set: { ...(name ? { name } : {}), updatedAt: new Date().toISOString() } })
    .returning();
  return row;
}

export async function listTenants(db: Db): Promise<Tenant[]> {
  return db.query.tenants.findMany({ orderBy: [asc(tenants.code)] });
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

/**
 * A search app's row answers public reads for at most 10 s after it was read; from 5 s on it is read again in the
 * background. A row read again unchanged stays the same object: the isolate's memory of URLs is keyed by it.
 */
const searchAppRows = new BoundedMemo<SearchAppRow>(10_000, 5_000, (known, found) => JSON.stringify(known) === JSON.stringify(found));

/**
 * `requireSearchApp` for the public search path, remembered per isolate for a few seconds so a search
 * does not wait on D1. Only found apps are remembered: a new app is searchable at once. With `waitUntil`, steady
 * traffic reads the row again in the background instead of waiting for it.
 */
export function cachedSearchApp(
  db: Db,
  tenantCode: string,
  code: string,
  waitUntil?: (promise: Promise<unknown>) => void,
): Promise<SearchAppRow> {
  return searchAppRows.get(`${tenantCode}/${code}`, () => requireSearchApp(db, tenantCode, code), { waitUntil });
}

/** `cachedSearchApp`'s row while it is trusted, at once; undefined where `cachedSearchApp` would wait on D1. */
export function trustedSearchApp(
  db: Db,
  tenantCode: string,
  code: string,
  waitUntil?: (promise: Promise<unknown>) => void,
): SearchAppRow | undefined {
  return searchAppRows.trusted(`${tenantCode}/${code}`, () => requireSearchApp(db, tenantCode, code), waitUntil);
}
