/**
 * Public search and suggest, as the HTTP routes ask for them: the search app is found (its row remembered briefly
 * per isolate) and its rate limit applied, then each answer comes from the first that has it of this isolate's
 * memory, the edge cache, the nearest fresh read replica and the app's primary objects.
 */
import { cachedSearchApp, type SearchAppRow } from '../db/queries';
import type { Db } from '../db/client';
import type { Env } from '../env';
import { enforceRateLimit } from '../rate-limit';
import { suggestKey, type VersionedAnswer } from './answers';
import { answerThroughEdgeCache, rememberedAnswer, rememberUrl, urlKey, type EdgeAnswer } from './edge-cache';
import type { HighlightRequest } from './engine/highlight';
import type { SearchRequest, SuggestRequest } from './engine/types';
import { searchAnswer, type RequestedRatio } from './hybrid-search';
import { SearchAppClient } from './search-app-client';
import type { IndexRead } from './app-object/answering';

/** What a public read needs of its HTTP request, without the framework. */
export interface PublicRequest {
  env: Env;
  db: Db;
  clientIp: string;
  /** The whole request URL: its origin places edge-cache entries, and a GET's URL is remembered with its question. */
  url: string;
  /** GET answers go through the edge cache; POST answers neither. */
  cacheable: boolean;
  /** The caller sent `Cache-Control: no-cache`: a freshly computed answer (which is still stored). */
  fresh: boolean;
  /** The request's continent (Cloudflare's `cf.continent`), which picks the nearest read replica; read only for apps with replicas. */
  continent(): string | undefined;
  waitUntil(promise: Promise<unknown>): void;
}

/** A search app opened for public reads. */
export interface PublicApp {
  row: SearchAppRow;
  searchApp: SearchAppClient;
  /** The key of its cached answers: the row's id is in it, as an app deleted and created again starts its versions again. */
  cacheKey: string;
}

/** A serialized answer, and which copy answered when the app has read replicas (`X-Search-Replica`). */
export interface PublicAnswer extends EdgeAnswer {
  servedBy?: string;
}

/** The search app `tenant/code` for a public read, after its rate limit; 404 when unknown, 429 when limited. */
export async function openPublicApp(request: PublicRequest, tenant: string, code: string): Promise<PublicApp> {
  const row = await cachedSearchApp(request.db, tenant, code, request.waitUntil);
  await enforceRateLimit(request.env, row.rateLimit, { kind: 'search', appId: row.id, clientIp: request.clientIp });
  return { row, searchApp: new SearchAppClient(request.env, tenant, code), cacheKey: `${tenant}/${code}/${row.id}` };
}

/** Whether this GET URL was answered before in this isolate, so it may skip parsing (`rememberedSearch`). */
export function answeredBefore(request: PublicRequest): boolean {
  return request.cacheable && !request.fresh && urlKey(request.url) !== undefined;
}

/**
 * The answer this isolate remembers for the very same GET URL at the app's current version and settings, without
 * parsing the request again; undefined when it has none.
 */
export async function rememberedSearch(request: PublicRequest, app: PublicApp): Promise<PublicAnswer | undefined> {
  const known = urlKey(request.url);
  // `scope` is the app row the URL was answered under: new settings are a new row, and may key the question otherwise.
  if (!known || known.scope !== app.row) return undefined;
  return rememberedAnswer(app.cacheKey, known.key, app.searchApp, request.waitUntil);
}

/** A search's serialized result, keyword or hybrid (with the semanticRatio asked for, or the app's default). */
export async function publicSearch(
  request: PublicRequest,
  app: PublicApp,
  search: SearchRequest & HighlightRequest,
  semantic: RequestedRatio,
): Promise<PublicAnswer> {
  const nearest = nearestCopy(request, app);
  const { key, answer } = searchAnswer(request.env, app.row, search, semantic, (fresh, hybrid) =>
    nearest.read({ kind: 'search', request: search, semantic: hybrid }, fresh),
  );
  const found = await throughEdgeCache(request, app, key, answer);
  if (request.cacheable) rememberUrl(request.url, key(), app.row);
  return { ...found, servedBy: nearest.servedBy() };
}

/** Completions of the query's last word, serialized. */
export async function publicSuggest(request: PublicRequest, app: PublicApp, suggest: SuggestRequest): Promise<PublicAnswer> {
  const nearest = nearestCopy(request, app);
  const found = await throughEdgeCache(
    request,
    app,
    () => suggestKey(suggest),
    (fresh) => nearest.read({ kind: 'suggest', request: suggest }, fresh),
  );
  return { ...found, servedBy: nearest.servedBy() };
}

function throughEdgeCache(
  request: PublicRequest,
  app: PublicApp,
  key: () => string,
  answer: (fresh: boolean) => Promise<VersionedAnswer>,
): Promise<EdgeAnswer> {
  const { url, cacheable, fresh, waitUntil } = request;
  return answerThroughEdgeCache(
    { url, app: app.cacheKey, key, cacheable, fresh, waitUntil },
    { name: app.searchApp.name, indexVersion: () => app.searchApp.indexVersion(), answer },
  );
}

/**
 * Reads from the app's nearest read replica (or its primary, when it has none or the replica is behind), noting who
 * answered: a region per shard, or `primary`; nothing when the app has no replicas.
 */
function nearestCopy(request: PublicRequest, app: PublicApp) {
  // Reading `cf` parses the request's whole cf object: only apps with replicas need its continent.
  const placement = { regions: app.row.replicas, continent: app.row.replicas.length ? request.continent() : undefined };
  let servedBy: string | undefined;
  return {
    async read(read: IndexRead, fresh: boolean): Promise<VersionedAnswer> {
      const answer = await app.searchApp.nearestAnswer(read, placement, fresh);
      if (app.row.replicas.length) servedBy = answer.servedBy;
      return answer;
    },
    servedBy: () => servedBy,
  };
}
