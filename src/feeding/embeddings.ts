/**
 * Feeding computes document vectors before documents reach the search app: each document's semantic text is
 * hashed with the embedder's fingerprint, and only texts whose hash has no stored vector go to the provider,
 * in as few calls as it allows. Feeding the same documents again, or re-indexing without an embedder or
 * semantic-field change, makes no provider call.
 */
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import type { HashedVector } from '../search/app-storage';
import { activeEmbedder, type ActiveEmbedder } from '../search/embedding/config';
import { embeddingProvider, embedTexts, feedingRetries } from '../search/embedding/providers';
import { contentHash, embeddingText } from '../search/embedding/text';
import type { SearchAppClient } from '../search/search-app-client';
import type { AppIndexConfig, FeedOperation } from '../search/search-app-object';

/** Semantic texts a re-index embeds per round (a few provider calls, under a megabyte of vectors per RPC). */
const REINDEX_TEXTS_PER_ROUND = 1000;

/**
 * The operations with their vectors' content hashes, and the vectors the search app does not have yet.
 * Throws EmbeddingError when the provider fails after its retries.
 */
export async function embedOperations(
  env: Env,
  app: SearchAppRow,
  searchApp: SearchAppClient,
  operations: FeedOperation[],
): Promise<{ operations: FeedOperation[]; vectors: HashedVector[] }> {
  const active = activeEmbedder(app);
  if (!active) return { operations, vectors: [] };
  const texts = new Map<string, string>();
  const hashed = operations.map((op): FeedOperation => {
    if (op.operation !== 'update') return op;
    const text = embeddingText(app.fields, op.payload ?? {});
    if (!text) return { ...op, vector: null };
    const hash = contentHash(active.fingerprint, text);
    texts.set(hash, text);
    return { ...op, vector: hash };
  });
  const known = texts.size ? await searchApp.knownVectors([...texts.keys()]) : new Set<string>();
  const missing = [...texts].filter(([hash]) => !known.has(hash));
  return { operations: hashed, vectors: await embed(env, active, missing) };
}

/** Before a re-index: embeds and stores the semantic texts of live documents that have no vector yet. */
export async function embedMissingVectors(env: Env, app: SearchAppRow, searchApp: SearchAppClient, config: AppIndexConfig): Promise<void> {
  const active = activeEmbedder(app);
  if (!active) return;
  for (let after: string | null = ''; after !== null;) {
    const { texts, next }: Awaited<ReturnType<SearchAppClient['missingVectors']>> = await searchApp.missingVectors(
      config,
      after,
      REINDEX_TEXTS_PER_ROUND,
    );
    if (texts.length)
      await searchApp.storeVectors(
        active.fingerprint,
        await embed(
          env,
          active,
          texts.map((t) => [t.hash, t.text]),
        ),
      );
    after = next;
  }
}

async function embed(env: Env, active: ActiveEmbedder, texts: Array<[hash: string, text: string]>): Promise<HashedVector[]> {
  if (!texts.length) return [];
  const vectors = await embedTexts(
    embeddingProvider(env, active.embedder),
    texts.map(([, text]) => text),
    feedingRetries(env),
  );
  return texts.map(([hash], i) => ({ hash, vector: vectors[i] }));
}
