import { createMiddleware } from 'hono/factory';
import { authorizeTenantToken, checkSecret, TOKEN_HEADER } from '../auth/tokens';
import type { Permission, TokenKind } from '../db/schema';
import type { AppEnv } from '../env';

/** Guards a route with a secret from the environment (root admin token, agent token). */
export function requireSecret(secretName: 'ADMIN_TOKEN' | 'AUTH_TOKEN') {
  return createMiddleware<AppEnv>(async (c, next) => {
    await checkSecret(c.req.header(TOKEN_HEADER), c.env[secretName]);
    await next();
  });
}

/** Guards a tenant route (`:tenant` in the path) with a tenant token of `kind` (see `authorizeTenantToken`). */
export function requireTenantToken(kind: TokenKind, permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set('principal', await authorizeTenantToken(c.var.db, c.req.header(TOKEN_HEADER), c.req.param('tenant'), kind, permission));
    await next();
  });
}
