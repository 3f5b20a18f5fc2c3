import { createMiddleware } from 'hono/factory';
import type { Permission, TokenKind } from '../db/schema';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { secretsEqual } from './crypto';
import { verifyToken } from './tokens';

export const TOKEN_HEADER = 'X-Service-Token';

/** Who called: the tenant token that was accepted. */
export interface Principal {
  tokenId: string;
  tenantCode: string;
  kind: TokenKind;
  permission: Permission;
}

/** Guards a route with a secret from the environment (root admin token, agent token). */
export function requireSecret(secretName: 'ADMIN_TOKEN' | 'AUTH_TOKEN') {
  return createMiddleware<AppEnv>(async (c, next) => {
    const expected = c.env[secretName];
    const presented = c.req.header(TOKEN_HEADER);
    if (!expected || !presented || !(await secretsEqual(presented, expected))) throw ApiError.unauthorized();
    await next();
  });
}

/**
 * Guards a tenant route (`:tenant` in the path) with a tenant token of `kind`.
 * 401: missing, unknown or revoked. 403: another tenant's token, the wrong kind, or
 * READ where WRITE is needed; a token of tenant A never learns whether tenant B exists.
 */
export function requireTenantToken(kind: TokenKind, permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const token = await verifyToken(c.var.db, c.req.header(TOKEN_HEADER));
    if (!token) throw ApiError.unauthorized();
    const tenant = c.req.param('tenant');
    if (token.tenantCode !== tenant) throw ApiError.forbidden('Token is not valid for this tenant');
    if (token.kind !== kind) throw ApiError.forbidden(`A ${kind} token is required`);
    if (permission === 'WRITE' && token.permission !== 'WRITE') throw ApiError.forbidden('WRITE permission is required');
    c.set('principal', { tokenId: token.id, tenantCode: token.tenantCode, kind: token.kind, permission: token.permission });
    await next();
  });
}
