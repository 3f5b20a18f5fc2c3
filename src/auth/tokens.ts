import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiTokens, type Permission, type TokenKind } from '../db/schema';
import { hexEqual, randomToken, sha256Hex } from './crypto';

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
