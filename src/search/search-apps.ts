/** Search apps in D1: created and renamed by the admin API, their field schema replaced by Update schema. */
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { findSearchApp, requireSearchApp, requireTenant, type SearchAppRow } from '../db/queries';
import { searchApps } from '../db/schema';
import { embedderInput, embedderView, nextEmbedder } from './embedding/config';
import type { SearchAppSchema } from './field-schema';

const sortSchema = z
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
      .array(sortSchema)
      .max(50)
      .refine((sorts) => new Set(sorts.map((s) => s.id)).size === sorts.length, 'sort ids must be unique')
      .optional(),
    embedder: embedderInput.nullable().optional(),
    defaultSemanticRatio: z.number().min(0).max(1).optional(),
  })
  .strict();

export type SearchAppInput = z.output<typeof searchAppInput>;

/**
 * Creates a search app of an existing tenant (404 otherwise) or updates the fields given; a new app is named
 * after its code unless a name is given, and has no fields until its schema is set.
 */
export async function upsertSearchApp(db: Db, tenantCode: string, code: string, changes: SearchAppInput): Promise<SearchAppRow> {
  await requireTenant(db, tenantCode);
  const existing = await findSearchApp(db, tenantCode, code);
  const embedder = nextEmbedder(changes.embedder, existing?.embedder ?? null);
  const [row] = await db
    .insert(searchApps)
    .values({
      tenantCode,
      code,
      name: changes.name ?? existing?.name ?? code,
      sorts: changes.sorts ?? [],
      embedder,
      defaultSemanticRatio: changes.defaultSemanticRatio,
    })
    .onConflictDoUpdate({
      target: [searchApps.tenantCode, searchApps.code],
      set: {
        ...(changes.name ? { name: changes.name } : {}),
        ...(changes.sorts ? { sorts: changes.sorts } : {}),
        ...(changes.embedder !== undefined ? { embedder } : {}),
        ...(changes.defaultSemanticRatio !== undefined ? { defaultSemanticRatio: changes.defaultSemanticRatio } : {}),
        updatedAt: new Date().toISOString(),
      },
    })
    .returning();
  return row;
}

/** A search app as the admin API answers it: the embedder's credentials masked. */
export function searchAppView(row: SearchAppRow) {
  return { ...row, embedder: embedderView(row.embedder) };
}

/** Replaces the field schema of a search app (404 when unknown); the index follows with the next feeding job. */
export async function updateSearchAppSchema(db: Db, tenantCode: string, code: string, schema: SearchAppSchema): Promise<void> {
  await requireSearchApp(db, tenantCode, code);
  await db
    .update(searchApps)
    .set({ fields: schema.fields, updatedAt: new Date().toISOString() })
    .where(and(eq(searchApps.tenantCode, tenantCode), eq(searchApps.code, code)));
}
