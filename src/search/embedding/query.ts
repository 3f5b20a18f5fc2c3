/** Query embeddings, remembered per isolate: search-as-you-type sends the same queries again and again. */
import type { Env } from '../../env';
import { embedderFingerprint, type StoredEmbedder } from './config';
import { embeddingProvider, embedTexts, QUERY_RETRIES } from './providers';
import { MAX_EMBEDDING_CHARS } from './text';

const CACHE_SIZE = 1000;
const cache = new Map<string, Float32Array>();

/** The query's vector through the app's embedder (cached); throws EmbeddingError when the provider fails. */
export async function embedQuery(env: Env, embedder: StoredEmbedder, query: string): Promise<Float32Array> {
  const text = query.trim().slice(0, MAX_EMBEDDING_CHARS);
  const key = `${embedderFingerprint(embedder)}\n${text}`;
  const cached = cache.get(key);
  if (cached) {
    // Re-inserting keeps the map in least-recently-used order.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const [vector] = await embedTexts(embeddingProvider(env, embedder), [text], QUERY_RETRIES);
  const oldest = cache.keys().next();
  if (cache.size >= CACHE_SIZE && !oldest.done) cache.delete(oldest.value);
  cache.set(key, vector);
  return vector;
}
