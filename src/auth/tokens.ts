import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiTokens, type Permission, type TokenKind } from '../db/schema';
import { ApiError } from '../errors';
import { hexEqual, randomHex, randomToken, sha256Hex, secretsEqual } from './crypto';

/** The request header every token and API key travels in (unless an email configuration names another). */
export const TOKEN_HEADER = 'X-Service-Token';

/** Who called: the tenant token that was accepted. */
export interface Principal {
  tokenId: string;
  tenantCode: string;
  kind: TokenKind;
  permission: Permission;
}

export type ApiToken = typeof apiTokens.$inferSelect;

/**
 * Token format: `sst_<id>.<secret>`. The id finds the row; the secret is checked
 * against its stored SHA-256 in constant time, so a lookup never leaks timing on the secret.
 */
const TOKEN_PATTERN = /^sst_([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

export interface IssuedToken {
  id: string;
  token: string;
  kind: TokenKind;
  permission: Permission;
  name: string | null;
}

export async function issueToken(db: Db, tenantCode: string, kind: TokenKind, permission: Permission, name?: string): Promise<IssuedToken> {
  // Hex: a base64url id may start with `-`, which command lines read as an option (`edge-search tokens revoke <id>`).
  const id = randomHex(8);
  const secret = randomToken(32);
  await db.insert(apiTokens).values({ id, tenantCode, kind, permission, name, secretHash: await sha256Hex(secret) });
  return { id, token: `sst_${id}.${secret}`, kind, permission, name: name ?? null };
}

/** Deletes a token of a tenant; answers whether it existed. */
export async function revokeToken(db: Db, tenantCode: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(apiTokens)
    .where(and(eq(apiTokens.id, id), eq(apiTokens.tenantCode, tenantCode)))
    .returning({ id: apiTokens.id });
  return deleted.length > 0;
}

/** A tenant's tokens as operators see them: never the secret nor its hash. */
export async function listTokens(db: Db, tenantCode: string) {
  return db.query.apiTokens.findMany({
    where: eq(apiTokens.tenantCode, tenantCode),
    columns: { id: true, kind: true, permission: true, name: true, createdAt: true, lastUsedAt: true },
    orderBy: [asc(apiTokens.createdAt), asc(apiTokens.id)],
  });
}

/** `lastUsedAt` is written at most once a minute per token, so authenticating stays a read. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The stored token a presented value stands for, or undefined when it is malformed, unknown or revoked. */
export async function verifyToken(db: Db, presented: string | undefined): Promise<ApiToken | undefined> {
  const match = presented ? TOKEN_PATTERN.exec(presented) : null;
  if (!match) return undefined;
  const [, id, secret] = match;
  const row = await db.query.apiTokens.findFirst({ where: eq(apiTokens.id, id) });
  if (!row) return undefined;
  if (!hexEqual(row.secretHash, await sha256Hex(secret))) return undefined;
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - Date.parse(row.lastUsedAt) >= LAST_USED_RESOLUTION_MS) {
    await db.update(apiTokens).set({ lastUsedAt: now.toISOString() }).where(eq(apiTokens.id, id));
  }
  return row;
}

/** Tenant tokens have a recognisable shape, so an answer can tell a caller which kind it presented without a lookup. */
const TENANT_TOKEN_PREFIX = 'sst_';

/**
 * 401 unless `presented` equals the configured secret (root admin token, agent token); compared in constant time.
 * The message names the secret needed (`needed`), and says so when a tenant token was presented instead.
 */
export async function checkSecret(presented: string | undefined, expected: string | undefined, needed: string): Promise<void> {
  if (!expected || !presented || !(await secretsEqual(presented, expected))) {
    const tenantToken = presented?.startsWith(TENANT_TOKEN_PREFIX) ? '; a tenant token was presented' : '';
    throw ApiError.unauthorized(`Missing or invalid token: this endpoint needs ${needed}${tenantToken}`);
  }
}

/**
 * The principal of a tenant token of `kind` presented for `tenantCode`.
 * 401: missing, unknown or revoked. 403: another tenant's token, the wrong kind, or
 * READ where WRITE is needed; a token of tenant A never learns whether tenant B exists.
 */
export async function authorizeTenantToken(
  db: Db,
  presented: string | undefined,
  tenantCode: string | undefined,
  kind: TokenKind,
  permission: Permission,
): Promise<Principal> {
  const needed = `a tenant ${kind} token${permission === 'WRITE' ? ' with WRITE permission' : ''}`;
  const token = await verifyToken(db, presented);
  if (!token) {
    const shape = presented && !presented.startsWith(TENANT_TOKEN_PREFIX) ? ` (${TENANT_TOKEN_PREFIX}<id>.<secret>)` : '';
    throw ApiError.unauthorized(`Missing or invalid token: this endpoint needs ${needed}${shape}`);
  }
  if (token.tenantCode !== tenantCode) throw ApiError.forbidden('Token is not valid for this tenant');
  if (token.kind !== kind) throw ApiError.forbidden(`This endpoint needs ${needed}; a ${token.kind} token was presented`);
  if (permission === 'WRITE' && token.permission !== 'WRITE') {
    throw ApiError.forbidden(`This endpoint needs ${needed}; the token has READ permission`);
  }
  return { tokenId: token.id, tenantCode: token.tenantCode, kind: token.kind, permission: token.permission };
}
