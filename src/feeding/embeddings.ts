/**
 * Feeding computes document vectors before documents reach the search app: each document's semantic text is
 * hashed with the embedder's fingerprint, and only texts whose hash has no stored vector go to the provider,
 * those of a whole queue batch together, in as few calls as it allows. Feeding the same documents again, or
 * re-indexing without an embedder or semantic-field change, makes no provider call.
 */
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import type { HashedVector } from '../search/app-storage';
import { activeEmbedder } from '../search/embedding/config';
import { embedEach, embeddingProvider, EmbeddingError, embedTexts, feedingRetries } from '../search/embedding/providers';
import { contentHash, embeddingText } from '../search/embedding/text';
import type { SearchAppClient } from '../search/search-app-client';
import type { FeedOperation } from '../search/app-object/feeding';
import type { AppIndexConfig } from '../search/app-object/live-index';

/** Semantic texts a re-index embeds per round (a few provider calls, under a megabyte of vectors per RPC). */
const REINDEX_TEXTS_PER_ROUND = 1000;

/** One queue message's operations, ready for the search app. */
export interface EmbeddedOperations {
  /** The operations to apply, each update with its vector's content hash (null: no semantic text). */
  operations: FeedOperation[];
  /** The vectors these operations need that the search app did not have. */
  vectors: HashedVector[];
  /** Operations left out because the provider failed on their text after its retries: the reason by entry id. */
  failed: Map<number, string>;
}

/**
 * Embeds the semantic texts of several queue messages' operations of one search app together: one question to
 * the search app for the vectors it holds, then the missing texts (each once) in as few provider calls as it
 * allows. Answers per message, in order; a failed provider call fails only the operations whose text it carried.
 */
export async function embedOperations(
  env: Env,
  app: SearchAppRow,
  searchApp: SearchAppClient,
  messages: FeedOperation[][],
): Promise<EmbeddedOperations[]> {
  const active = activeEmbedder(app);
  if (!active) return messages.map((operations) => ({ operations, vectors: [], failed: new Map() }));
  const texts = new Map<string, string>();
  const hashed = messages.map((operations) =>
    operations.map((op): FeedOperation => {
      if (op.operation !== 'update') return op;
      const text = embeddingText(app.fields, op.payload ?? {});
      if (!text) return { ...op, vector: null };
      const hash = contentHash(active.fingerprint, text);
      texts.set(hash, text);
      return { ...op, vector: hash };
    }),
  );
  const known = texts.size ? await searchApp.knownVectors([...texts.keys()]) : new Set<string>();
  const missing = [...texts].filter(([hash]) => !known.has(hash));
  const outcomes = await embedEach(
    embeddingProvider(env, active.embedder),
    missing.map(([, text]) => text),
    feedingRetries(env),
  );
  const embedded = new Map(missing.map(([hash], i) => [hash, outcomes[i]]));
  return hashed.map((operations) => {
    const vectors = new Map<string, Float32Array>();
    const failed = new Map<number, string>();
    const ready = operations.filter((op) => {
      const outcome = op.vector ? embedded.get(op.vector) : undefined;
      if (outcome instanceof EmbeddingError) failed.set(op.opId, outcome.message);
      else if (outcome && op.vector) vectors.set(op.vector, outcome);
      return !failed.has(op.opId);
    });
    return { operations: ready, vectors: [...vectors].map(([hash, vector]) => ({ hash, vector })), failed };
  });
}

/** Before a re-index: embeds and stores the semantic texts of live documents that have no vector yet; throws EmbeddingError. */
export async function embedMissingVectors(env: Env, app: SearchAppRow, searchApp: SearchAppClient, config: AppIndexConfig): Promise<void> {
  const active = activeEmbedder(app);
  if (!active) return;
  for (let after: string | null = ''; after !== null;) {
    const { texts, next }: Awaited<ReturnType<SearchAppClient['missingVectors']>> = await searchApp.missingVectors(
      config,
      after,
      REINDEX_TEXTS_PER_ROUND,
    );
    if (texts.length) {
      const vectors = await embedTexts(
        embeddingProvider(env, active.embedder),
        texts.map((t) => t.text),
        feedingRetries(env),
      );
      await searchApp.storeVectors(
        active.fingerprint,
        texts.map((t, i) => ({ hash: t.hash, vector: vectors[i] })),
      );
    }
    after = next;
  }
}
