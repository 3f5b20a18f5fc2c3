/** Search and suggest: public (no token), answered by the search app's Durable Object. */
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { z } from 'zod';
import { cachedSearchApp, type SearchAppRow } from '../../db/queries';
import type { AppEnv } from '../../env';
import type { HighlightRequest } from '../../search/engine/highlight';
import { ApiError } from '../../errors';
import { suggestKey, type VersionedAnswer } from '../../search/answers';
import {
  answerThroughEdgeCache,
  rememberedAnswer,
  rememberUrl,
  urlKey,
  type EdgeAnswer,
  type EdgeCacheRequest,
} from '../../search/edge-cache';
import type { Filter, SearchRequest } from '../../search/engine/types';
import { searchAnswer, type RequestedRatio } from '../../search/hybrid-search';
import { SearchAppClient } from '../../search/search-app-client';
import type { IndexRead } from '../../search/search-app-object';
import { assertNotReserved, codeParam, parseJsonBody, parseOrThrow } from '../../validation';
import { searchBody, searchQuery, suggestInput } from '../../contract';
import { FACET_LIMIT_PREFIX, FILTER_PREFIX, RANGE, rangeBound } from '../../contract/search-query-string';
import { enforceRateLimit } from '../../rate-limit';
import { clientIp } from '../middleware';

/** GET answers may be reused briefly by browsers and caches: results change only when the index does. */
const GET_CACHE_CONTROL = 'public, max-age=5';

/** A search request as the routes read it: the engine's request, highlighting, the caller's request id and the semanticRatio asked for. */
type SearchCall = SearchRequest & HighlightRequest & { requestId?: string; semantic: RequestedRatio };

/** Query parameters: single ones as strings (the first when repeated), `f.{id}` as filters. */
function fromQueryString(c: Context<AppEnv>): SearchCall {
  const all = c.req.queries();
  const singles: Record<string, string> = Object.create(null);
  const filters = new Map<string, Filter>();
  const facetLimits = new Map<string, string>();
  for (const [name, values] of Object.entries(all)) {
    if (name.startsWith(FACET_LIMIT_PREFIX)) {
      const id = name.slice(FACET_LIMIT_PREFIX.length);
      for (const key of id.split('.')) assertNotReserved(key, name);
      facetLimits.set(id, values[0]);
      continue;
    }
    if (!name.startsWith(FILTER_PREFIX)) {
      singles[name] = values[0];
      continue;
    }
    const id = name.slice(FILTER_PREFIX.length);
    for (const key of id.split('.')) assertNotReserved(key, name);
    const ranges = values.map((value) => RANGE.exec(value)).filter((match) => match !== null);
    if (ranges.length === 0) filters.set(id, { filterType: 'term', values });
    else if (ranges.length === 1 && values.length === 1) {
      const [, min, max] = ranges[0];
      filters.set(id, { filterType: 'range', minValue: rangeBound(min), maxValue: rangeBound(max) });
    } else
      throw ApiError.badRequest('Invalid query parameters', [{ path: name, message: 'give either one range min..max or term values' }]);
  }
  // Plain objects for the Durable Object call (RPC cannot clone prototype-less objects); their keys are checked above.
  const { semanticRatio, ...query } = parseOrThrow(
    searchQuery,
    { ...singles, facetLimits: facetLimits.size ? Object.fromEntries(facetLimits) : undefined },
    'query parameters',
  );
  return { ...query, filters: Object.fromEntries(filters), semantic: { ratio: semanticRatio, path: 'semanticRatio' } };
}

function fromBody(body: z.output<typeof searchBody>): SearchCall {
  const sort = typeof body.sort === 'string' ? body.sort : body.sort?.sort;
  return {
    q: body.q,
    page: body.page,
    rows: body.rows,
    sort: sort || undefined,
    filters: body.filters,
    facetLimit: body.facetLimit,
    facetLimits: body.facetLimits,
    facets: body.facets,
    attributesToHighlight: body.attributesToHighlight,
    attributesToSnippet: body.attributesToSnippet,
    highlightPreTag: body.highlightPreTag,
    highlightPostTag: body.highlightPostTag,
    requestId: body.requestId,
    semantic: { ratio: body.hybrid?.semanticRatio, path: 'hybrid.semanticRatio' },
  };
}

type FoundSearchApp = Awaited<ReturnType<typeof findSearchApp>>;

/**
 * The path's search app (row remembered briefly per isolate), the key of its cached answers and its Durable Object;
 * 400 for malformed codes, 404 when unknown.
 */
async function findSearchApp(c: Context<AppEnv>) {
  const tenant = parseOrThrow(codeParam, c.req.param('tenant'), 'path parameters');
  const code = parseOrThrow(codeParam, c.req.param('code'), 'path parameters');
  const row = await cachedSearchApp(c.var.db, tenant, code);
  await enforceRateLimit(c.env, row.rateLimit, { kind: 'search', appId: row.id, clientIp: clientIp(c) });
  // The row's id keys the app's cached answers: an app deleted and created again starts its index versions again.
  return { app: `${tenant}/${code}/${row.id}`, row, searchApp: new SearchAppClient(c.env, tenant, code) };
}

/** The caller sent `Cache-Control: no-cache`: it asks for a freshly computed answer. */
function asksFresh(c: Context<AppEnv>): boolean {
  return /no-cache/i.test(c.req.header('Cache-Control') ?? '');
}

/** GET answers go through the edge cache; `Cache-Control: no-cache` from the caller asks for a freshly computed answer. */
function edgeCacheRequest(c: Context<AppEnv>, app: string, key: string): EdgeCacheRequest {
  return {
    origin: new URL(c.req.url).origin,
    app,
    key,
    cacheable: c.req.method === 'GET',
    fresh: asksFresh(c),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
  };
}

/**
 * Where a read's answer comes from on an edge-cache miss: the nearest read replica of the app (or the primary, when
 * the app has none or the replica is behind); `X-Search-Replica` names the region or `primary` when the app has replicas.
 */
function nearestCopy(c: Context<AppEnv>, row: SearchAppRow, searchApp: SearchAppClient) {
  const placement = { regions: row.replicas, continent: (c.req.raw.cf as IncomingRequestCfProperties | undefined)?.continent };
  return async (read: IndexRead, fresh: boolean): Promise<VersionedAnswer> => {
    const answer = await searchApp.nearestAnswer(read, placement, fresh);
    if (row.replicas.length) c.header('X-Search-Replica', answer.servedBy);
    return answer;
  };
}

/** The one answer shape around a serialized result: spliced as text, so the result is never parsed in the worker. */
function answer(c: Context<AppEnv>, started: number, requestId: string | undefined, name: 'result' | 'suggestions', found: EdgeAnswer) {
  const head = `{"statusCode":200,"requestId":${JSON.stringify(requestId ?? crypto.randomUUID())},"time":${Date.now() - started}`;
  return c.body(`${head},"${name}":${found.json}}`, 200, { 'Content-Type': 'application/json', 'X-Edge-Cache': found.cache });
}

async function answerSearch(c: Context<AppEnv>, request: SearchCall, found?: FoundSearchApp) {
  const started = Date.now();
  const { app, row, searchApp } = found ?? (await findSearchApp(c));
  const { requestId, semantic, ...search } = request;
  const nearest = nearestCopy(c, row, searchApp);
  const { key, answer: compute } = searchAnswer(c.env, row, search, semantic, (fresh, hybrid) =>
    nearest({ kind: 'search', request: search, semantic: hybrid }, fresh),
  );
  const cacheRequest = edgeCacheRequest(c, app, key);
  const answered = await answerThroughEdgeCache(cacheRequest, {
    indexVersion: () => searchApp.indexVersion(),
    answer: compute,
  });
  if (cacheRequest.cacheable) rememberUrl(c.req.url, key, row);
  return answer(c, started, requestId, 'result', answered);
}

/**
 * A GET search. A repeat of the very URL answered before (same app settings) is answered from this isolate's
 * memory of answers before its query is parsed again; any other goes the whole way.
 */
async function answerSearchGet(c: Context<AppEnv>) {
  const started = Date.now();
  // Only a URL answered before skips ahead: any other is parsed first, its bad query a 400 before the app is looked up.
  const known = asksFresh(c) ? undefined : urlKey(c.req.url);
  if (!known) return answerSearch(c, fromQueryString(c));
  const found = await findSearchApp(c);
  const remembered = known.scope === found.row ? await rememberedAnswer(found.app, known.key, found.searchApp) : undefined;
  // The URL passed validation when it was first answered, its requestId included.
  if (remembered) return answer(c, started, c.req.query('requestId'), 'result', remembered);
  return answerSearch(c, fromQueryString(c), found);
}

async function answerSuggest(c: Context<AppEnv>, input: z.output<typeof suggestInput>) {
  const started = Date.now();
  const { app, row, searchApp } = await findSearchApp(c);
  const suggest = { q: input.q, rows: input.rows };
  const nearest = nearestCopy(c, row, searchApp);
  const found = await answerThroughEdgeCache(edgeCacheRequest(c, app, suggestKey(suggest)), {
    indexVersion: () => searchApp.indexVersion(),
    answer: (fresh) => nearest({ kind: 'suggest', request: suggest }, fresh),
  });
  return answer(c, started, input.requestId, 'suggestions', found);
}

const cacheGet = async (c: Context<AppEnv>, next: () => Promise<void>) => {
  await next();
  if (c.req.method === 'GET' && c.res.status === 200) c.header('Cache-Control', GET_CACHE_CONTROL);
};

export const searchRoutes = new Hono<AppEnv>()
  .use('*', cors({ origin: '*', allowMethods: ['GET', 'POST', 'OPTIONS'], allowHeaders: ['Content-Type'], maxAge: 86400 }))
  .use('*', cacheGet)
  .get('/suggest/:tenant/:code', (c) =>
    answerSuggest(
      c,
      parseOrThrow(
        suggestInput,
        { q: c.req.query('q'), rows: c.req.query('rows'), requestId: c.req.query('requestId') },
        'query parameters',
      ),
    ),
  )
  .post('/suggest/:tenant/:code', async (c) => answerSuggest(c, await parseJsonBody(() => c.req.json(), suggestInput.passthrough())))
  .get('/:tenant/:code', (c) => answerSearchGet(c))
  .post('/:tenant/:code', async (c) => answerSearch(c, fromBody(await parseJsonBody(() => c.req.json(), searchBody))));
