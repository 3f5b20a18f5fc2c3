/** Search apps in D1: created and renamed by the admin API, their field schema replaced by Update schema. */
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { findSearchApp, requireSearchApp, requireTenant, type SearchAppRow } from '../db/queries';
import { searchApps, tenants } from '../db/schema';
import type { Env } from '../env';
import { SearchAppClient } from './search-app-client';
import { MAX_SHARDS } from './shards';
import { rateLimitTier } from '../rate-limit';
import { embedderInput, embedderView, nextEmbedder } from './embedding/config';
import type { RankingSettings } from './engine/types';
import type { SearchAppSchema } from './field-schema';
import { ApiError } from '../errors';
import { REPLICA_REGIONS } from './replica-regions';

const sortSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (1 to 64)'),
    field: z.string().min(1),
    direction: z.enum(['asc', 'desc']),
  })
  .strict();

const word = z.string().trim().min(1).max(100);

/** A synonym rule: multi-way (`synonyms` find each other) or one-way (`input` also finds `synonyms`). */
const synonymRule = z
  .object({ input: word.optional(), synonyms: z.array(word).min(1).max(50) })
  .strict()
  .refine((rule) => rule.input !== undefined || rule.synonyms.length >= 2, 'a multi-way rule needs at least two synonyms');

const customRankingRule = z.object({ field: z.string().min(1), direction: z.enum(['asc', 'desc']) }).strict();

/** Ranking settings of the PUT body, each replacing the stored one when given. */
const rankingInput = {
  synonyms: z.array(synonymRule).max(1000).optional(),
  stopWords: z.array(word).max(1000).optional(),
  customRanking: z.array(customRankingRule).max(10).optional(),
};
const RANKING_FIELD_TYPES = new Set(['long', 'double', 'date', 'boolean']);

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
    rateLimit: rateLimitTier.optional(),
    shards: z.number().int().min(1).max(MAX_SHARDS).optional(),
    /** Regions with a read replica; `[]` turns replicas off. */
    replicas: z
      .array(z.enum(REPLICA_REGIONS))
      .max(REPLICA_REGIONS.length)
      .refine((regions) => new Set(regions).size === regions.length, 'regions must be unique')
      .optional(),
    ...rankingInput,
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
  const ranking = nextRanking(changes, existing);
  const [row] = await db
    .insert(searchApps)
    .values({
      tenantCode,
      code,
      name: changes.name ?? existing?.name ?? code,
      sorts: changes.sorts ?? [],
      embedder,
      defaultSemanticRatio: changes.defaultSemanticRatio,
      rateLimit: changes.rateLimit,
      shards: changes.shards,
      replicas: changes.replicas,
      ranking,
    })
    .onConflictDoUpdate({
      target: [searchApps.tenantCode, searchApps.code],
      set: {
        ...(changes.name ? { name: changes.name } : {}),
        ...(changes.sorts ? { sorts: changes.sorts } : {}),
        ...(changes.embedder !== undefined ? { embedder } : {}),
        ...(changes.defaultSemanticRatio !== undefined ? { defaultSemanticRatio: changes.defaultSemanticRatio } : {}),
        ...(changes.rateLimit ? { rateLimit: changes.rateLimit } : {}),
        ...(changes.shards ? { shards: changes.shards } : {}),
        ...(changes.replicas ? { replicas: changes.replicas } : {}),
        ranking,
        updatedAt: new Date().toISOString(),
      },
    })
    .returning();
  return row;
}

/**
 * The stored ranking settings with the ones given replaced. Custom ranking names numeric or boolean fields:
 * a field the schema has with another type is refused (400); one it does not have yet is ignored until it does.
 */
function nextRanking(changes: SearchAppInput, existing: SearchAppRow | undefined): RankingSettings {
  const ranking: RankingSettings = { ...existing?.ranking };
  if (changes.synonyms) ranking.synonyms = changes.synonyms;
  if (changes.stopWords) ranking.stopWords = changes.stopWords;
  if (changes.customRanking) {
    const fields = new Map((existing?.fields ?? []).map((field) => [field.code, field]));
    const details = changes.customRanking.flatMap(({ field }, i) => {
      const type = fields.get(field)?.dataType;
      return type && !RANKING_FIELD_TYPES.has(type)
        ? [
            {
              path: `customRanking.${i}.field`,
              message: `'${field}' is a ${type} field; custom ranking needs long, double, date or boolean`,
            },
          ]
        : [];
    });
    if (details.length) throw new ApiError(400, 'Invalid search app', details);
    ranking.customRanking = changes.customRanking;
  }
  return ranking;
}

/** A search app as the admin API answers it: the embedder's credentials masked, the ranking settings at the top level. */
export function searchAppView({ ranking, ...row }: SearchAppRow) {
  return {
    ...row,
    embedder: embedderView(row.embedder),
    synonyms: ranking.synonyms ?? [],
    stopWords: ranking.stopWords ?? null,
    customRanking: ranking.customRanking ?? [],
  };
}

/**
 * Deletes the read replicas of regions the app no longer lists (objects and storage); the primary stops logging
 * changes when none is left. Reads follow the new list within the 10 s an isolate remembers the app's row.
 */
export async function dropUnlistedReplicas(env: Env, app: SearchAppRow): Promise<void> {
  await new SearchAppClient(env, app.tenantCode, app.code).retainReplicas(app.replicas);
}

/** Replaces the field schema of a search app (404 when unknown); the index follows with the next feeding job. */
export async function updateSearchAppSchema(db: Db, tenantCode: string, code: string, schema: SearchAppSchema): Promise<void> {
  await requireSearchApp(db, tenantCode, code);
  await db
    .update(searchApps)
    .set({ fields: schema.fields, updatedAt: new Date().toISOString() })
    .where(and(eq(searchApps.tenantCode, tenantCode), eq(searchApps.code, code)));
}

/** The search apps of a tenant (404 for an unknown tenant), by code. */
export async function listSearchApps(db: Db, tenantCode: string): Promise<SearchAppRow[]> {
  await requireTenant(db, tenantCode);
  return db.query.searchApps.findMany({ where: eq(searchApps.tenantCode, tenantCode), orderBy: [asc(searchApps.code)] });
}

/**
 * Deletes a search app: its Durable Object storage (documents, index, snapshots), and its row, whose foreign keys take
 * its queue entries and jobs. The object is wiped before the row goes, so a failure leaves the row for a retry to find,
 * and once more after, for a feeding message that was applied in between; once the row is gone the consumer drops the
 * app's messages. Safe to retry: a missing app is already deleted.
 */
export async function deleteSearchApp(env: Env, db: Db, tenantCode: string, code: string): Promise<void> {
  const searchApp = new SearchAppClient(env, tenantCode, code);
  await searchApp.destroy();
  await db.delete(searchApps).where(and(eq(searchApps.tenantCode, tenantCode), eq(searchApps.code, code)));
  await searchApp.destroy();
}

/**
 * Deletes a tenant with everything it owns: each search app as above, then the tenant row, whose foreign keys take
 * its tokens, agents (with their chat sessions) and email configurations (with their delivery logs). Safe to retry.
 */
export async function deleteTenant(env: Env, db: Db, tenantCode: string): Promise<void> {
  const apps = await db.query.searchApps.findMany({ where: eq(searchApps.tenantCode, tenantCode), columns: { code: true } });
  for (const app of apps) await deleteSearchApp(env, db, tenantCode, app.code);
  await db.delete(tenants).where(eq(tenants.code, tenantCode));
}
