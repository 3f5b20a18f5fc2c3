import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { rateLimitTier } from '../rate-limit';
import type { Db } from '../db/client';
import { findSearchApp, requireTenant } from '../db/queries';
import { agents, type StoredOpenAiSettings } from '../db/schema';
import { ApiError } from '../errors';
import { codeParam } from '../validation';
import { PROVIDER_PREFIXES, resolveModel } from './providers';

export type AgentRow = typeof agents.$inferSelect;

const modelId = z
  .string()
  .max(200)
  .refine((id) => resolveModel(id) !== undefined, `a model id is <provider>:<model> with provider one of ${PROVIDER_PREFIXES.join(', ')}`);

/** Body of `PUT /api/v1/admin/agents/{tenant}/{code}`: replaces the configuration (see `openai.apiKey`). */
export const agentConfigInput = z
  .object({
    llm_models: z
      .array(z.object({ model: modelId, label: z.string().min(1).max(200).optional() }).strict())
      .min(1)
      .max(50)
      .refine((models) => new Set(models.map((m) => m.model)).size === models.length, 'model ids must be unique'),
    default_model: z.string().optional(),
    welcome_message: z.string().max(10_000).default(''),
    system_prompt: z.string().max(100_000).default(''),
    search_app: codeParam.nullable().optional(),
    enabled: z.boolean().default(true),
    rate_limit: rateLimitTier.default('standard'),
    openai: z
      .object({
        baseUrl: z.url({ protocol: /^https?$/ }).optional(),
        /** Omitted: the stored key is kept; null: cleared (the OPENAI_API_KEY secret applies). */
        apiKey: z.string().min(1).max(1000).nullable().optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((c) => c.default_model === undefined || c.llm_models.some((m) => m.model === c.default_model), {
    path: ['default_model'],
    message: 'default_model must be one of llm_models',
  });

export type AgentConfigInput = z.infer<typeof agentConfigInput>;

export async function findAgent(db: Db, tenantCode: string, code: string): Promise<AgentRow | undefined> {
  return db.query.agents.findFirst({ where: and(eq(agents.tenantCode, tenantCode), eq(agents.code, code)) });
}

export async function requireAgent(db: Db, tenantCode: string, code: string): Promise<AgentRow> {
  const agent = await findAgent(db, tenantCode, code);
  if (!agent) throw ApiError.notFound(`Agent configuration '${tenantCode}/${code}' not found`);
  return agent;
}

export async function putAgent(db: Db, tenantCode: string, code: string, input: AgentConfigInput) {
  await requireTenant(db, tenantCode);
  if (input.search_app && !(await findSearchApp(db, tenantCode, input.search_app))) {
    throw ApiError.badRequest('Invalid request body', [
      { path: 'search_app', message: `search app '${tenantCode}/${input.search_app}' not found` },
    ]);
  }
  const existing = await findAgent(db, tenantCode, code);
  const openai: StoredOpenAiSettings = {};
  if (input.openai?.baseUrl) openai.baseUrl = input.openai.baseUrl;
  const apiKey = input.openai?.apiKey === undefined ? existing?.openai.apiKey : input.openai.apiKey;
  if (apiKey) openai.apiKey = apiKey;

  const values = {
    llmModels: input.llm_models,
    defaultModel: input.default_model ?? input.llm_models[0].model,
    welcomeMessage: input.welcome_message,
    systemPrompt: input.system_prompt,
    searchApp: input.search_app ?? null,
    enabled: input.enabled,
    rateLimit: input.rate_limit,
    openai,
  };
  const [row] = await db
    .insert(agents)
    .values({ tenantCode, code, ...values })
    .onConflictDoUpdate({ target: [agents.tenantCode, agents.code], set: { ...values, updatedAt: new Date().toISOString() } })
    .returning();
  return agentView(row);
}

/** A configuration as the admin API answers it: the API key shown as `***`. */
/** The agent configurations of a tenant, by code. */
export async function listAgents(db: Db, tenantCode: string): Promise<AgentRow[]> {
  await requireTenant(db, tenantCode);
  return db.query.agents.findMany({ where: eq(agents.tenantCode, tenantCode), orderBy: [asc(agents.code)] });
}

/** Deletes an agent configuration with its chat sessions; safe to retry. */
export async function deleteAgent(db: Db, tenantCode: string, code: string): Promise<void> {
  await db.delete(agents).where(and(eq(agents.tenantCode, tenantCode), eq(agents.code, code)));
}

export function agentView(row: AgentRow) {
  return {
    tenantCode: row.tenantCode,
    code: row.code,
    llm_models: row.llmModels,
    default_model: row.defaultModel,
    welcome_message: row.welcomeMessage,
    system_prompt: row.systemPrompt,
    search_app: row.searchApp,
    enabled: row.enabled,
    rate_limit: row.rateLimit,
    openai: { baseUrl: row.openai.baseUrl ?? null, apiKey: row.openai.apiKey ? '***' : null },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
