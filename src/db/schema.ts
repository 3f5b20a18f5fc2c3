import { sql } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { RateLimitTier } from '../rate-limit';
import type { SearchAppField } from '../search/field-schema';
import type { EmailProviderConfig } from '../email/providers';
import type { NamedSort, RankingSettings } from '../search/engine/types';
import type { FeedingState } from '../contract/feeding';
import type { StoredEmbedder } from '../search/embedding/config';
import type { ReplicaRegion } from '../search/replica-regions';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;
const timestamps = {
  createdAt: text('created_at').notNull().default(now),
  updatedAt: text('updated_at').notNull().default(now),
};

// ---------------------------------------------------------------- tenants, search apps, tokens

export const tenants = sqliteTable('tenants', {
  code: text('code').primaryKey(),
  name: text('name').notNull(),
  ...timestamps,
});

export const searchApps = sqliteTable(
  'search_apps',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tenantCode: text('tenant_code')
      .notNull()
      .references(() => tenants.code, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    name: text('name').notNull(),
    /** The field schema (SearchAppField[] with defaults filled in), JSON. */
    fields: text('fields', { mode: 'json' })
      .$type<SearchAppField[]>()
      .notNull()
      .default(sql`'[]'`),
    sorts: text('sorts', { mode: 'json' })
      .$type<NamedSort[]>()
      .notNull()
      .default(sql`'[]'`),
    /** The model that embeds `semantic: true` fields and queries; its API key is a secret (answered `***`). */
    embedder: text('embedder', { mode: 'json' }).$type<StoredEmbedder>(),
    /** The semanticRatio of searches that name none, when the app has an embedder and semantic fields. */
    defaultSemanticRatio: real('default_semantic_ratio').notNull().default(0.5),
    /** Synonyms, stop words and custom ranking (issue 11); the index takes them at the next re-index. */
    ranking: text('ranking', { mode: 'json' })
      .$type<RankingSettings>()
      .notNull()
      .default(sql`'{}'`),
    /** Rate-limit tier of search and suggest (src/rate-limit.ts). */
    rateLimit: text('rate_limit').$type<RateLimitTier>().notNull().default('standard'),
    /** Shard Durable Objects of the index (1 to 16); a change takes effect at the next full feed's swap or re-index job. */
    shards: integer('shards').notNull().default(1),
    /** Regions (Durable Object location hints) with a read replica of the index; none: every read goes to the primary. */
    replicas: text('replicas', { mode: 'json' })
      .$type<ReplicaRegion[]>()
      .notNull()
      .default(sql`'[]'`),
    ...timestamps,
  },
  (t) => [uniqueIndex('search_apps_tenant_code').on(t.tenantCode, t.code)],
);

export type TokenKind = 'admin' | 'feeding';
export type Permission = 'READ' | 'WRITE';

/** Tenant API tokens; only the SHA-256 of the secret part is stored. */
export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    tenantCode: text('tenant_code')
      .notNull()
      .references(() => tenants.code, { onDelete: 'cascade' }),
    kind: text('kind').$type<TokenKind>().notNull(),
    permission: text('permission').$type<Permission>().notNull(),
    name: text('name'),
    secretHash: text('secret_hash').notNull(),
    createdAt: text('created_at').notNull().default(now),
    /** When the token last authenticated a request, to the minute (see `verifyToken`). */
    lastUsedAt: text('last_used_at'),
  },
  (t) => [index('api_tokens_tenant').on(t.tenantCode)],
);

// ---------------------------------------------------------------- email

/** Provider settings of an email configuration, credentials included (never answered, never logged). */
export type StoredEmailProvider = EmailProviderConfig;
export type EmailVariableType = 'standard' | 'masked';
export type EmailVariables = Record<string, { value: string; type: EmailVariableType }>;
/** The API-key security configuration; only the SHA-256 of the key is kept. */
export interface StoredEmailSecurity {
  type: 'apiKey';
  header: string;
  keyHash: string;
}

export const emailConfigs = sqliteTable(
  'email_configs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tenantCode: text('tenant_code')
      .notNull()
      .references(() => tenants.code, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    from: text('from'),
    subject: text('subject'),
    html: text('html'),
    text: text('text'),
    variables: text('variables', { mode: 'json' })
      .$type<EmailVariables>()
      .notNull()
      .default(sql`'{}'`),
    provider: text('provider', { mode: 'json' }).$type<StoredEmailProvider>(),
    security: text('security', { mode: 'json' }).$type<StoredEmailSecurity>(),
    /** Rate-limit tier of email send (src/rate-limit.ts). */
    rateLimit: text('rate_limit').$type<RateLimitTier>().notNull().default('standard'),
    ...timestamps,
  },
  (t) => [uniqueIndex('email_configs_tenant_code').on(t.tenantCode, t.code)],
);

export type EmailDeliveryStatus = 'queued' | 'sending' | 'sent' | 'failed';

/** One row per send request; variables are stored with masked values replaced by `[masked]`. */
export const emailDeliveries = sqliteTable(
  'email_deliveries',
  {
    id: text('id').primaryKey(),
    configId: integer('config_id')
      .notNull()
      .references(() => emailConfigs.id, { onDelete: 'cascade' }),
    target: text('target').notNull(),
    variables: text('variables', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    status: text('status').$type<EmailDeliveryStatus>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** Why the last attempt failed (kept after a later success for the record). */
    error: text('error'),
    sentAt: text('sent_at'),
    ...timestamps,
  },
  (t) => [index('email_deliveries_config').on(t.configId, t.createdAt)],
);

// ---------------------------------------------------------------- agent chat

export interface AgentModel {
  /** `<provider prefix>:<provider model id>`, e.g. `openai:gpt-4o-mini`. */
  model: string;
  label?: string;
}

/** OpenAI-compatible endpoint of an agent; the API key is a secret (never answered, never logged). */
export interface StoredOpenAiSettings {
  baseUrl?: string;
  apiKey?: string;
}

export const agents = sqliteTable(
  'agents',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tenantCode: text('tenant_code')
      .notNull()
      .references(() => tenants.code, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    llmModels: text('llm_models', { mode: 'json' }).$type<AgentModel[]>().notNull(),
    defaultModel: text('default_model').notNull(),
    welcomeMessage: text('welcome_message').notNull(),
    systemPrompt: text('system_prompt').notNull(),
    /** Code of a search app of the same tenant the model may search. */
    searchApp: text('search_app'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    openai: text('openai', { mode: 'json' })
      .$type<StoredOpenAiSettings>()
      .notNull()
      .default(sql`'{}'`),
    /** Rate-limit tier of chat (src/rate-limit.ts). */
    rateLimit: text('rate_limit').$type<RateLimitTier>().notNull().default('standard'),
    ...timestamps,
  },
  (t) => [uniqueIndex('agents_tenant_code').on(t.tenantCode, t.code)],
);

/** A conversation with one agent; `sessionId` is what the client sends back. */
export const chatSessions = sqliteTable(
  'chat_sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    agentId: integer('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('chat_sessions_agent_session').on(t.agentId, t.sessionId)],
);

export type ChatRole = 'user' | 'assistant';

/** The text of each turn, replayed to the model in id order; attachments are not kept. */
export const chatTurns = sqliteTable(
  'chat_turns',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionRowId: integer('session_row_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    role: text('role').$type<ChatRole>().notNull(),
    text: text('text').notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [index('chat_turns_session').on(t.sessionRowId, t.id)],
);

// ---------------------------------------------------------------- feeding

export { TERMINAL_FEEDING_STATES, type FeedingState } from '../contract/feeding';

/** Feeding queue entries: one per accepted document operation. */
export const feedingOperations = sqliteTable(
  'feeding_operations',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appId: integer('app_id')
      .notNull()
      .references(() => searchApps.id, { onDelete: 'cascade' }),
    documentId: text('document_id').notNull(),
    operation: text('operation').$type<'update' | 'delete'>().notNull(),
    state: text('state').$type<FeedingState>().notNull().default('CREATED'),
    type: text('type').notNull(),
    /** The full-feed cycle the operation was sent in, if any. */
    cycleId: integer('cycle_id'),
    /**
     * The last full-feed cycle started when the operation was accepted (0: none; null: accepted before this was kept).
     * An operation outside a cycle whose cycle was then ending is kept by its swap; one a later cycle's swap replaced is not applied.
     */
    lastCycleId: integer('last_cycle_id'),
    error: text('error'),
    /** The operation's payload (JSON) while the entry is open, so a lost message can be sent again (outbox); cleared once staged or terminal. */
    payload: text('payload'),
    /** When the operation was last put on the queue (set on insert); recovery re-sends open entries long past it. */
    sentAt: text('sent_at'),
    /** How often recovery re-sent the operation. */
    redrives: integer('redrives').notNull().default(0),
    createdAt: text('created_at').notNull().default(now),
    finishedAt: text('finished_at'),
  },
  (t) => [
    index('feeding_operations_app_cycle').on(t.appId, t.cycleId, t.state),
    index('feeding_operations_open').on(t.appId, t.state, t.sentAt),
  ],
);

/**
 * Apps whose client asked a full feed to end (`requestCycleEnd`), written before the object is told: a cycle left
 * ENDING may have no feeding entry for the Cron Trigger's backstop to find (none fed, or all terminal). The backstop
 * deletes the row once the object holds no ending cycle.
 */
export const fullFeedEnds = sqliteTable('full_feed_ends', {
  appId: integer('app_id')
    .primaryKey()
    .references(() => searchApps.id, { onDelete: 'cascade' }),
  requestedAt: text('requested_at').notNull().default(now),
});

export type JobState = 'CREATED' | 'STARTED' | 'FINISHED' | 'ERROR';

/** Re-index jobs (Schedule feeding job). */
export const feedingJobs = sqliteTable('feeding_jobs', {
  id: text('id').primaryKey(),
  appId: integer('app_id')
    .notNull()
    .references(() => searchApps.id, { onDelete: 'cascade' }),
  state: text('state').$type<JobState>().notNull().default('CREATED'),
  processed: integer('processed').notNull().default(0),
  total: integer('total'),
  error: text('error'),
  createdAt: text('created_at').notNull().default(now),
  finishedAt: text('finished_at'),
});
