import type { Principal } from './auth/tokens';
import type { Db } from './db/client';
import type { SearchAppObject } from './search/search-app-object';

/** Bindings and secrets of the worker, as declared in wrangler.toml and .dev.vars. */
export interface Env {
  DB: D1Database;
  SEARCH_APP: DurableObjectNamespace<SearchAppObject>;
  FEEDING_QUEUE: Queue;
  EMAIL_QUEUE: Queue;
  /** The static assets (`public/`, built from `ui/`): the search page. */
  ASSETS: Fetcher;
  /** Root token of the admin API. Without it every admin call answers 401. */
  ADMIN_TOKEN?: string;
  /** Agent token of the chat endpoints. */
  AUTH_TOKEN?: string;
  /** Seconds before the first retry of a failed email delivery, doubled per attempt (default 10; tests use 0). */
  EMAIL_RETRY_BASE_DELAY_SECONDS?: string;
  /** Seconds between the first change after a snapshot and the snapshot that covers it (default 2; tests run the alarm themselves). */
  SNAPSHOT_DELAY_SECONDS?: string;
  /** Workers AI, for `workers-ai:` models and embedders; not declared in wrangler.toml (see docs/decisions.md, Agent chat). */
  AI?: Ai;
  /** Fallback API key and base URL of `openai:` models when an agent configuration has none. */
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  /** Milliseconds before the first retry of a failed embedding call while feeding, doubled per retry (default 500; tests use 1). */
  EMBEDDING_RETRY_BASE_MS?: string;
  /** Rate Limiting bindings, one per tier (src/rate-limit.ts); without them nothing is limited. */
  RATE_LIMIT_LOW?: RateLimit;
  RATE_LIMIT_STANDARD?: RateLimit;
  RATE_LIMIT_HIGH?: RateLimit;
  /** Days terminal feeding queue entries are kept (default 7; README, Retention). */
  FEEDING_RETENTION_DAYS?: string;
  /** Days sent or failed email deliveries are kept in the log (default 30). */
  EMAIL_RETENTION_DAYS?: string;
  /** Days a chat session may stay idle before it is deleted with its turns (default 30). */
  CHAT_RETENTION_DAYS?: string;
  /** Tests only: the shards (Durable Object names, comma-separated) that refuse to prepare cross-shard swaps. */
  TEST_REFUSE_SWAP?: string;
}

/** Hono generics shared by every route module. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** The D1 database, opened once per request by `withDb`. */
    db: Db;
    /** Set by the tenant-token middleware once the token is accepted. */
    principal: Principal;
  };
}

/** A non-negative number of a string variable (seconds, milliseconds), or `fallback` when it is unset or not one. */
export function numberVar(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value !== undefined && Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}
