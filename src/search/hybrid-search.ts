/**
 * Search with the app's embedder: decides the semanticRatio (the request's, else the app's default when it has
 * an embedder and semantic fields, else 0), embeds the query once (cached), and asks the Durable Object for
 * fused results. A provider failure answers keyword results with `semantic.fallback` saying why.
 */
import type { SearchAppRow } from '../db/queries';
import type { Env } from '../env';
import { ApiError, logError } from '../errors';
import { activeEmbedder } from './embedding/config';
import { EmbeddingError } from './embedding/providers';
import { embedQuery } from './embedding/query';
import type { SearchRequest, SearchResult } from './engine/types';
import { SearchAppClient } from './search-app-client';

/** The semanticRatio a request asked for and where in the request it stood (for the 400's detail path). */
export interface RequestedRatio {
  ratio?: number;
  path: string;
}

/**
 * The semanticRatio a search runs with: the requested one, else the app's default when it has an embedder and
 * semantic fields, else 0; 0 too for an empty query (nothing to embed). Above 0 without an embedder is 400.
 */
export function semanticRatioOf(app: SearchAppRow, request: SearchRequest, requested: RequestedRatio = { path: 'semanticRatio' }): number {
  const active = activeEmbedder(app);
  const ratio = requested.ratio ?? (active ? app.defaultSemanticRatio : 0);
  if (ratio > 0 && !active) {
    throw ApiError.badRequest('Invalid search request', [
      { path: requested.path, message: 'semantic search needs an embedder and semantic fields on this search app; use 0 or leave it out' },
    ]);
  }
  return request.q?.trim() ? ratio : 0;
}

export async function searchWithEmbedder(
  env: Env,
  app: SearchAppRow,
  request: SearchRequest,
  requested: RequestedRatio = { path: 'semanticRatio' },
): Promise<SearchResult> {
  const ratio = semanticRatioOf(app, request, requested);
  const active = activeEmbedder(app);
  const searchApp = new SearchAppClient(env, app.tenantCode, app.code);
  const q = request.q?.trim();
  if (!active || ratio === 0 || !q) return searchApp.search(request);
  let vector: Float32Array;
  try {
    vector = await embedQuery(env, active.embedder, q);
  } catch (error) {
    if (!(error instanceof EmbeddingError)) throw error;
    logError('query embedding failed', error, { tenantCode: app.tenantCode, code: app.code });
    const result = await searchApp.search(request);
    return { ...result, semantic: { ratio: 0, fallback: `embedding failed: ${error.message}` } };
  }
  return searchApp.search(request, { vector, ratio, embedder: active.fingerprint });
}
