/**
 * Search with the app's embedder: decides the semanticRatio (the request's, else the app's default when it has
 * an embedder and semantic fields, else 0), embeds the query once (cached), and asks the Durable Object for
 * fused results. A provider failure answers keyword results with `semantic.fallback` saying why.
 */
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import { ApiError, logError } from '../errors';
import { searchKey, type VersionedAnswer } from './answers';
import { activeEmbedder } from './embedding/config';
import { EmbeddingError } from './embedding/providers';
import { embedQuery } from './embedding/query';
import type { SearchRequest } from './engine/types';
import type { HighlightRequest } from './engine/highlight';
import { SearchAppClient } from './search-app-client';
import type { SemanticSearch } from './app-object/live-index';

/** The semanticRatio a request asked for and where in the request it stood (for the 400's detail path). */
export interface RequestedRatio {
  ratio?: number;
  path: string;
}

/**
 * The semanticRatio a search runs with: the requested one, else the app's default when it has an embedder and
 * semantic fields, else 0; 0 too for an empty query (nothing to embed). Above 0 without an embedder is 400.
 */
function semanticRatioOf(app: SearchAppRow, request: SearchRequest, requested: RequestedRatio): number {
  const active = activeEmbedder(app);
  const ratio = requested.ratio ?? (active ? app.defaultSemanticRatio : 0);
  if (ratio > 0 && !active) {
    throw ApiError.badRequest('Invalid search request', [
      { path: requested.path, message: 'semantic search needs an embedder and semantic fields on this search app; use 0 or leave it out' },
    ]);
  }
  return request.q?.trim() ? ratio : 0;
}

/** `make`'s value, made on the first call. */
export function once(make: () => string): () => string {
  let made: string | undefined;
  return () => (made ??= make());
}

/**
 * The index's answer to the search, keyword or (with `semantic`) hybrid; `fresh`: not from the object's memory of answers;
 * `key`: the answer's key, which the object remembers it under.
 */
export type IndexAnswer = (fresh: boolean, semantic: SemanticSearch | undefined, key: string) => Promise<VersionedAnswer>;

/** A search's serialized answer, and the key under which it may be cached. */
export interface SearchAnswer {
  /**
   * One string per distinct question: the request's canonical form, with the ratio and embedder of a hybrid search;
   * made on the first call only (an answer neither cached nor remembered, a POST's, never needs it).
   */
  key(): string;
  /** Computes the answer (`fresh`: not from the Durable Object's memory of answers). */
  answer(fresh: boolean): Promise<VersionedAnswer>;
}

/**
 * How a search is answered: by keyword, or hybrid with the query's vector, through `indexAnswer` when given (e.g. the
 * nearest read replica), else by the app's primary objects. The key needs no embedding, so a cached hybrid answer
 * costs no provider call; a keyword answer given because the provider failed is `transient`.
 */
export function searchAnswer(
  env: Env,
  app: SearchAppRow,
  request: SearchRequest & HighlightRequest,
  requested: RequestedRatio = { path: 'semanticRatio' },
  indexAnswer?: IndexAnswer,
): SearchAnswer {
  const ratio = semanticRatioOf(app, request, requested);
  const active = activeEmbedder(app);
  const read: IndexAnswer =
    indexAnswer ??
    ((fresh, semantic, key) => new SearchAppClient(env, app.tenantCode, app.code).searchAnswer(request, fresh, semantic, key));
  // Made once per request, in the worker: the object keys its memory of answers by the same string.
  const keywordKey = once(() => searchKey(request));
  const keyword = (fresh: boolean) => read(fresh, undefined, keywordKey());
  const q = request.q?.trim();
  if (!active || ratio === 0 || !q) return { key: keywordKey, answer: keyword };
  const hybrid = { ratio, embedder: active.fingerprint };
  const key = once(() => searchKey(request, hybrid));
  return {
    key,
    async answer(fresh) {
      try {
        const vector = await embedQuery(env, active.embedder, q);
        return await read(fresh, { ...hybrid, vector }, key());
      } catch (error) {
        if (!(error instanceof EmbeddingError)) throw error;
        logError('query embedding failed', error, { tenantCode: app.tenantCode, code: app.code });
        const answer = await keyword(fresh);
        const semantic = { ratio: 0, fallback: `embedding failed: ${error.message}` };
        return { version: answer.version, json: JSON.stringify({ ...JSON.parse(answer.json), semantic }), transient: true };
      }
    },
  };
}
