/** Root-token administration: tenants, search apps and tenant tokens. */
import { z } from 'zod';
import { searchAppInput } from '../search/search-apps';

export { searchAppInput };

export const TOKEN_KINDS = ['admin', 'feeding'] as const;
export const PERMISSIONS = ['READ', 'WRITE'] as const;

export const tenantBody = z.object({ name: z.string().min(1).max(200).optional() }).strict();

export const tokenBody = z
  .object({
    kind: z.enum(TOKEN_KINDS),
    permission: z.enum(PERMISSIONS),
    name: z.string().min(1).max(200).optional(),
  })
  .strict();

export const tenant = z.object({ code: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() });

/** A search app as the admin API answers it (settings added later travel as further keys). */
export const searchApp = z.looseObject({
  id: z.number().int(),
  tenantCode: z.string(),
  code: z.string(),
  name: z.string(),
  fields: z.array(z.record(z.string(), z.unknown())).describe('the field schema with defaults filled in'),
  sorts: z.array(z.object({ id: z.string(), field: z.string(), direction: z.enum(['asc', 'desc']) })),
  embedder: z.record(z.string(), z.unknown()).nullable().optional().describe('the embedder, its API key answered as ***'),
  defaultSemanticRatio: z.number().optional(),
  shards: z
    .number()
    .int()
    .optional()
    .describe('shard Durable Objects of the index; a change takes effect at the next full feed or Schedule feeding job (re-index)'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const issuedToken = z.object({
  id: z.string(),
  token: z.string().describe('the only time the token is shown'),
  kind: z.enum(TOKEN_KINDS),
  permission: z.enum(PERMISSIONS),
  name: z.string().nullable(),
});

export const tokenInfo = z.object({
  id: z.string(),
  kind: z.enum(TOKEN_KINDS),
  permission: z.enum(PERMISSIONS),
  name: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});

export type Tenant = z.output<typeof tenant>;
export type SearchApp = z.output<typeof searchApp>;
export type SearchAppBody = z.input<typeof searchAppInput>;
export type TokenBody = z.input<typeof tokenBody>;
export type IssuedToken = z.output<typeof issuedToken>;
export type TokenInfo = z.output<typeof tokenInfo>;
