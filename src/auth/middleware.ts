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

/** What each secret is called in answers, so a caller holding the wrong one learns which is needed. */
const SECRET_NAMES = { ADMIN_TOKEN: 'the root admin token (ADMIN_TOKEN)', AUTH_TOKEN: 'the agent token (AUTH_TOKEN)' } as const;

/** Tenant tokens have a recognisable shape (`sst_<id>.<secret>`); telling one apart needs no lookup. */
const TENANT_TOKEN_SHAPE = /^sst_/;

/** Guards a route with a secret from the environment (root admin token, agent token). */
export function requireSecret(secretName: 'ADMIN_TOKEN' | 'AUTH_TOKEN') {
  return createMiddleware<AppEnv>(async (c, next) => {
    const expected = c.env[secretName];
    const presented = c.req.header(TOKEN_HEADER);
    if (!expected || !presented || !(await secretsEqual(presented, expected))) {
      const wrongKind = presented && TENANT_TOKEN_SHAPE.test(presented) ? '; a tenant token was presented' : '';
      throw ApiError.unauthorized(`Missing or invalid token: this endpoint needs ${SECRET_NAMES[secretName]}${wrongKind}`);
    }
    await next();
  });
}

/** Whether a presented value is one of the environment's secrets rather than a tenant token. */
async function isServiceSecret(env: AppEnv['Bindings'], presented: string): Promise<boolean> {
  for (const name of ['ADMIN_TOKEN', 'AUTH_TOKEN'] as const) {
    const secret = env[name];
    if (secret && (await secretsEqual(presented, secret))) return true;
  }
  return false;
}

/**
 * Guards a tenant route (`:tenant` in the path) with a tenant token of `kind`.
 * 401: missing, unknown or revoked. 403: another tenant's token, the wrong kind, or
 * READ where WRITE is needed; a token of tenant A never learns whether tenant B exists.
 */
export function requireTenantToken(kind: TokenKind, permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const presented = c.req.header(TOKEN_HEADER);
    const needed = `a tenant ${kind} token${permission === 'WRITE' ? ' with WRITE permission' : ''}`;
    const token = await verifyToken(c.var.db, presented);
    if (!token) {
      const root = presented && !TENANT_TOKEN_SHAPE.test(presented) && (await isServiceSecret(c.env, presented));
      throw ApiError.unauthorized(
        `Missing or invalid token: this endpoint needs ${needed}${root ? '; a service secret was presented' : ''}`,
      );
    }
    const tenant = c.req.param('tenant');
    if (token.tenantCode !== tenant) throw ApiError.forbidden('Token is not valid for this tenant');
    if (token.kind !== kind) throw ApiError.forbidden(`This endpoint needs ${needed}; a ${token.kind} token was presented`);
    if (permission === 'WRITE' && token.permission !== 'WRITE') {
      throw ApiError.forbidden(`This endpoint needs ${needed}; the token has READ permission`);
    }
    c.set('principal', { tokenId: token.id, tenantCode: token.tenantCode, kind: token.kind, permission: token.permission });
    await next();
  });
}
