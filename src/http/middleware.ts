import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { createDb, type Db } from '../db/client';
import { requireSearchApp, type SearchAppRow } from '../db/queries';
import type { AppEnv } from '../env';
import { SearchAppClient } from '../search/search-app-client';

/** Opens the D1 database once per request for the routes and middleware after it (`c.var.db`). */
export const withDb = createMiddleware<AppEnv>(async (c, next) => {
  c.set('db', createDb(c.env.DB));
  await next();
});

/** What `withSearchApp` adds to a tenant route's context. */
export interface SearchAppVariables {
  db: Db;
  /** The search app's D1 row. */
  app: SearchAppRow;
  /** The search app's Durable Object. */
  searchApp: SearchAppClient;
}

/**
 * Resolves the search app of a tenant route (`:tenant/:code`): its D1 row and its Durable Object client,
 * or 404 naming the missing tenant or search app. Placed after authorization and request validation.
 */
export const withSearchApp = createMiddleware<{ Bindings: AppEnv['Bindings']; Variables: SearchAppVariables }>(async (c, next) => {
  const app = await requireSearchApp(c.var.db, c.req.param('tenant') ?? '', c.req.param('code') ?? '');
  c.set('app', app);
  c.set('searchApp', new SearchAppClient(c.env, app.tenantCode, app.code));
  await next();
});

/** The caller's address as Cloudflare reports it; local development has none, so all local callers share one. */
export function clientIp(c: Context): string {
  return c.req.header('CF-Connecting-IP') ?? 'unknown';
}
