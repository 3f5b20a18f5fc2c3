import { createMiddleware } from 'hono/factory';
import { authorizeTenantToken, checkSecret, TOKEN_HEADER } from '../auth/tokens';
import type { Permission, TokenKind } from '../db/schema';
import type { AppEnv } from '../env';

/** What each secret is called in answers, so a caller holding the wrong token learns which one is needed. */
const SECRET_NAMES = { ADMIN_TOKEN: 'the root admin token (ADMIN_TOKEN)', AUTH_TOKEN: 'the agent token (AUTH_TOKEN)' } as const;

/** Guards a route with a secret from the environment (root admin token, agent token). */
export function requireSecret(secretName: 'ADMIN_TOKEN' | 'AUTH_TOKEN') {
  return createMiddleware<AppEnv>(async (c, next) => {
    await checkSecret(c.req.header(TOKEN_HEADER), c.env[secretName], SECRET_NAMES[secretName]);
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
