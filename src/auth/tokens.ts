import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiTokens, type Permission, type TokenKind } from '../db/schema';
import { ApiError } from '../errors';
import { hexEqual, randomToken, sha256Hex, secretsEqual } from './crypto';

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
  const id = randomToken(12);
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

/** The stored token a presented value stands for, or undefined when it is malformed, unknown or revoked. */
export async function verifyToken(db: Db, presented: string | undefined): Promise<ApiToken | undefined> {
  const match = presented ? TOKEN_PATTERN.exec(presented) : null;
  if (!match) return undefined;
  const [, id, secret] = match;
  const row = await db.query.apiTokens.findFirst({ where: eq(apiTokens.id, id) });
  if (!row) return undefined;
  return hexEqual(row.secretHash, await sha256Hex(secret)) ? row : undefined;
}

/** 401 unless `presented` equals the configured secret (root admin token, agent token); compared in constant time. */
export async function checkSecret(presented: string | undefined, expected: string | undefined): Promise<void> {
  if (!expected || !presented || !(await secretsEqual(presented, expected))) throw ApiError.unauthorized();
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
  const token = await verifyToken(db, presented);
  if (!token) throw ApiError.unauthorized();
  if (token.tenantCode !== tenantCode) throw ApiError.forbidden('Token is not valid for this tenant');
  if (token.kind !== kind) throw ApiError.forbidden(`A ${kind} token is required`);
  if (permission === 'WRITE' && token.permission !== 'WRITE') throw ApiError.forbidden('WRITE permission is required');
  return { tokenId: token.id, tenantCode: token.tenantCode, kind: token.kind, permission: token.permission };
}
