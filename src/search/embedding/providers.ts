/**
 * Embedding providers: Workers AI through the `AI` binding, and any server of the OpenAI embeddings API
 * (`POST {baseUrl}/embeddings`). Texts go in batches as large as the provider takes; failed calls are
 * retried with exponential backoff; the last failure's reason is the error message.
 */
import type { Env } from '../../env';
import type { StoredEmbedder } from './config';

/** A provider failure, with the reason feeding entries end ERROR with. */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

export interface EmbeddingProvider {
  /** Most texts one call may carry. */
  readonly maxBatch: number;
  /** One vector per text, in order; throws EmbeddingError. */
  embedBatch(texts: string[]): Promise<Float32Array[]>;
}

/** Workers AI's embedding models take at most 100 texts per call. */
const WORKERS_AI_BATCH = 100;
/** OpenAI takes 2,048 inputs but 300k tokens per call: 256 texts of at most ~512 tokens stay under it. */
const OPENAI_BATCH = 256;
const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const REASON_CHARS = 300;

interface EmbeddingBinding {
  run(model: string, input: { text: string[] }): Promise<{ shape?: number[]; data?: number[][] }>;
}

export function embeddingProvider(env: Env, embedder: StoredEmbedder): EmbeddingProvider {
  return embedder.provider === 'workers-ai' ? workersAi(env, embedder.model) : openAi(env, embedder);
}

function workersAi(env: Env, model: string): EmbeddingProvider {
  return {
    maxBatch: WORKERS_AI_BATCH,
    async embedBatch(texts) {
      if (!env.AI) throw new EmbeddingError('Workers AI is not configured on this deployment (no AI binding)', false);
      let answer: { data?: number[][] };
      try {
        answer = await (env.AI as unknown as EmbeddingBinding).run(model, { text: texts });
      } catch (error) {
        throw new EmbeddingError(`Workers AI failed: ${String(error instanceof Error ? error.message : error).slice(0, REASON_CHARS)}`);
      }
      return vectorsOf(answer.data, texts.length);
    },
  };
}

function openAi(env: Env, embedder: Extract<StoredEmbedder, { provider: 'openai' }>): EmbeddingProvider {
  const baseUrl = (embedder.baseUrl ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const apiKey = embedder.apiKey ?? env.OPENAI_API_KEY;
  return {
    maxBatch: OPENAI_BATCH,
    async embedBatch(texts) {
      let response: Response;
      try {
        response = await fetch(`${baseUrl}/embeddings`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
          body: JSON.stringify({
            model: embedder.model,
            input: texts,
            encoding_format: 'float',
            ...(embedder.dimensions ? { dimensions: embedder.dimensions } : {}),
          }),
        });
      } catch (error) {
        throw new EmbeddingError(`embedding provider could not be reached: ${String(error).slice(0, REASON_CHARS)}`);
      }
      if (!response.ok) {
        const detail = (await response.text().catch(() => '')).slice(0, REASON_CHARS);
        const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
        throw new EmbeddingError(`embedding provider answered ${response.status}${detail ? `: ${detail}` : ''}`, retryable);
      }
      const body = (await response.json().catch(() => ({}))) as { data?: Array<{ index?: number; embedding?: number[] }> };
      const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding ?? []);
      const vectors = vectorsOf(data, texts.length);
      // Servers that do not support `dimensions` (Ollama's, older models) ignore it: such vectors would share no space with the configured one.
      if (embedder.dimensions && vectors[0].length !== embedder.dimensions) {
        throw new EmbeddingError(
          `embedding provider answered ${vectors[0].length}-dimension vectors; the embedder asks for ${embedder.dimensions} (does the model support \`dimensions\`?)`,
          false,
        );
      }
      return vectors;
    },
  };
}

function vectorsOf(data: number[][] | undefined, expected: number): Float32Array[] {
  if (!data || data.length !== expected) {
    throw new EmbeddingError(`embedding provider answered ${data?.length ?? 0} vectors for ${expected} texts`, false);
  }
  const dimensions = data[0]?.length ?? 0;
  if (!dimensions || data.some((v) => v.length !== dimensions || v.some((x) => !Number.isFinite(x)))) {
    throw new EmbeddingError('embedding provider answered malformed vectors', false);
  }
  return data.map((v) => Float32Array.from(v));
}

export interface RetryPolicy {
  /** Calls per batch, the first included. */
  attempts: number;
  /** Delay before the first retry; doubled per retry. */
  baseDelayMs: number;
}

/** Retries for feeding: a provider hiccup should not fail documents. `EMBEDDING_RETRY_BASE_MS` sets the base delay. */
export function feedingRetries(env: Env): RetryPolicy {
  const base = Number(env.EMBEDDING_RETRY_BASE_MS ?? 500);
  return { attempts: 4, baseDelayMs: Number.isFinite(base) && base >= 0 ? base : 500 };
}

/** Retries at query time: one quick retry, then the search answers keyword results. */
export const QUERY_RETRIES: RetryPolicy = { attempts: 2, baseDelayMs: 100 };

/** Vectors of every text, in order, in as few calls as the provider allows, each retried with backoff; throws the first failure. */
export async function embedTexts(provider: EmbeddingProvider, texts: string[], retries: RetryPolicy): Promise<Float32Array[]> {
  const outcomes = await embedEach(provider, texts, retries);
  const failure = outcomes.find((outcome) => outcome instanceof EmbeddingError);
  if (failure) throw failure;
  return outcomes as Float32Array[];
}

/**
 * Each text's vector, or the error of its call: texts go in as few calls as the provider allows, each retried
 * with backoff, and a call that fails after its retries fails only its own texts (the other calls still run).
 */
export async function embedEach(
  provider: EmbeddingProvider,
  texts: string[],
  retries: RetryPolicy,
): Promise<Array<Float32Array | EmbeddingError>> {
  const outcomes: Array<Float32Array | EmbeddingError> = [];
  for (let start = 0; start < texts.length; start += provider.maxBatch) {
    const batch = texts.slice(start, start + provider.maxBatch);
    try {
      outcomes.push(...(await withRetries(() => provider.embedBatch(batch), retries)));
    } catch (error) {
      outcomes.push(...batch.map(() => error as EmbeddingError));
    }
  }
  return outcomes;
}

async function withRetries<T>(call: () => Promise<T>, { attempts, baseDelayMs }: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const retryable = !(error instanceof EmbeddingError) || error.retryable;
      if (!retryable || attempt >= attempts) throw error instanceof EmbeddingError ? error : new EmbeddingError(String(error));
      await scheduler.wait(baseDelayMs * 2 ** (attempt - 1));
    }
  }
}
