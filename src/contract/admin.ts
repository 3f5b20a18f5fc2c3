/** Root-token administration: tenants, search apps and tenant tokens. */
import { z } from 'zod';
import { embedderInput } from '../search/embedding/config';

export const TOKEN_KINDS = ['admin', 'feeding'] as const;
export const PERMISSIONS = ['READ', 'WRITE'] as const;

export const tenantBody = z.object({ name: z.string().min(1).max(200).optional() }).strict();

export const namedSort = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (1 to 64)'),
    field: z.string().min(1),
    direction: z.enum(['asc', 'desc']),
  })
  .strict();

/** The admin API's search app body: every field optional, an update changes only the fields given. */
export const searchAppInput = z
  .object({
    name: z.string().min(1).max(200).optional(),
    sorts: z
      .array(namedSort)
      .max(50)
      .refine((sorts) => new Set(sorts.map((s) => s.id)).size === sorts.length, 'sort ids must be unique')
      .optional(),
    embedder: embedderInput.nullable().optional(),
    defaultSemanticRatio: z.number().min(0).max(1).optional(),
  })
  .strict();

export const tokenBody = z
  .object({
    kind: z.enum(TOKEN_KINDS),
    permission: z.enum(PERMISSIONS),
    name: z.string().min(1).max(200).optional(),
  })
  .strict();

export const tenant = z.object({ code: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() });

export const searchApp = z.object({
  id: z.number().int(),
  tenantCode: z.string(),
  code: z.string(),
  name: z.string(),
  fields: z.array(z.record(z.string(), z.unknown())).describe('the field schema with defaults filled in'),
  sorts: z.array(namedSort),
  embedder: z.record(z.string(), z.unknown()).nullable().optional().describe('the embedder, its API key answered as ***'),
  defaultSemanticRatio: z.number().optional(),
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
