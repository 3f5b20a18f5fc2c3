/**
 * Public search and suggest, as the HTTP routes ask for them: the search app is found (its row remembered briefly
 * per isolate) and its rate limit applied, then each answer comes from the first that has it of this isolate's
 * memory, the edge cache, the nearest fresh read replica and the app's primary objects.
 */
import { cachedSearchApp, trustedSearchApp, type SearchAppRow } from '../db/queries';
import type { Db } from '../db/client';
import type { Env } from '../env';
import { enforceRateLimit, isLimited } from '../rate-limit';
import { suggestKey, type VersionedAnswer } from './answers';
import { answerThroughEdgeCache, rememberedAnswer, rememberedAnswerAt, trustedVersion, type EdgeAnswer } from './edge-cache';
import type { HighlightRequest } from './engine/highlight';
import type { SearchRequest, SuggestRequest } from './engine/types';
import { once, searchAnswer, type RequestedRatio } from './hybrid-search';
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
  /** The path's tenant and app codes, as validated. */
  tenant: string;
  code: string;
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
  return { tenant, code, row, searchApp: new SearchAppClient(request.env, tenant, code), cacheKey: `${tenant}/${code}/${row.id}` };
}

/**
 * What a GET search or suggest URL answered before decided, so that its repeats skip parsing it: the question's key, the
 * app row it was answered under (new settings are a new row, and may key the question otherwise), the path's app and
 * the query's requestId, each as validated then (the URL is the same string, so they are too), and what follows from
 * them: the app's `cacheKey` and its primary object's name (`SearchAppClient.name`, where its index version is known).
 */
export interface KnownUrl {
  key: string;
  /** The answer's field: `result` (search) or `suggestions`. */
  field: 'result' | 'suggestions';
  row: SearchAppRow;
  tenant: string;
  code: string;
  requestId: string | undefined;
  cacheKey: string;
  name: string;
}

/** GET search and suggest URLs answered before in this isolate, oldest first. */
const knownUrls = new Map<string, KnownUrl>();
const MAX_URLS = 1_024;
const MAX_URL_CHARS = 2_048;

const knownUrlOf = (app: PublicApp, key: string, field: KnownUrl['field'], requestId: string | undefined): KnownUrl => ({
  key,
  field,
  row: app.row,
  tenant: app.tenant,
  code: app.code,
  requestId,
  cacheKey: app.cacheKey,
  name: app.searchApp.name,
});

function rememberUrl(url: string, known: KnownUrl): void {
  if (url.length > MAX_URL_CHARS) return;
  knownUrls.delete(url);
  knownUrls.set(url, known);
  for (const oldest of knownUrls.keys()) {
    if (knownUrls.size <= MAX_URLS) break;
    knownUrls.delete(oldest);
  }
}

/** What this isolate knows of a GET URL it answered before (undefined for any other, and for a fresh request). */
export function knownUrl(request: Pick<PublicRequest, 'url' | 'cacheable' | 'fresh'>): KnownUrl | undefined {
  return request.cacheable && !request.fresh ? knownUrls.get(request.url) : undefined;
}

/** What a repeat answered at once needs of its request (`rememberedAtOnce`). */
export type AtOnceRequest = Pick<PublicRequest, 'env' | 'db' | 'waitUntil'>;

/**
 * The answer this isolate remembers for a known GET URL when all it takes is at hand without waiting: the app's row and
 * index version still trusted and no rate limit to ask (the common repeat); undefined otherwise, and then
 * `openPublicApp` and `rememberedRead` take the waiting way.
 */
export function rememberedAtOnce(request: AtOnceRequest, known: KnownUrl): PublicAnswer | undefined {
  const { env, db, waitUntil } = request;
  const row = trustedSearchApp(db, known.tenant, known.code, waitUntil);
  if (row !== known.row || isLimited(env, row.rateLimit)) return undefined;
  const source = { name: known.name, indexVersion: () => new SearchAppClient(env, known.tenant, known.code).indexVersion() };
  const version = trustedVersion(source, waitUntil);
  return version === undefined ? undefined : rememberedAnswerAt(known.cacheKey, known.key, version, waitUntil);
}

/**
 * The answer this isolate remembers for a known GET URL at the app's current version and settings, without parsing the
 * request again; undefined when it has none.
 */
export async function rememberedRead(request: PublicRequest, app: PublicApp, known: KnownUrl): Promise<PublicAnswer | undefined> {
  if (known.row !== app.row) return undefined;
  return rememberedAnswer(app.cacheKey, known.key, app.searchApp, request.waitUntil);
}

/** A search's serialized result, keyword or hybrid (with the semanticRatio asked for, or the app's default). */
export async function publicSearch(
  request: PublicRequest,
  app: PublicApp,
  search: SearchRequest & HighlightRequest,
  semantic: RequestedRatio,
  requestId?: string,
): Promise<PublicAnswer> {
  const nearest = nearestCopy(request, app);
  const { key, answer } = searchAnswer(request.env, app.row, search, semantic, (fresh, hybrid, key) =>
    nearest.read({ kind: 'search', request: search, semantic: hybrid, key }, fresh),
  );
  const found = await throughEdgeCache(request, app, key, answer);
  if (request.cacheable) rememberUrl(request.url, knownUrlOf(app, key(), 'result', requestId));
  return { ...found, servedBy: nearest.servedBy() };
}

/** Completions of the query's last word, serialized. */
export async function publicSuggest(
  request: PublicRequest,
  app: PublicApp,
  suggest: SuggestRequest,
  requestId?: string,
): Promise<PublicAnswer> {
  const nearest = nearestCopy(request, app);
  const key = once(() => suggestKey(suggest));
  const found = await throughEdgeCache(request, app, key, (fresh) =>
    nearest.read({ kind: 'suggest', request: suggest, key: key() }, fresh),
  );
  if (request.cacheable) rememberUrl(request.url, knownUrlOf(app, key(), 'suggestions', requestId));
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
