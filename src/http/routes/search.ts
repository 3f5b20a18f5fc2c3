/** Search and suggest: public (no token), answered by the search app's Durable Object. */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { z } from 'zod';
import { createDb } from '../../db/client';
import type { AppEnv, Env } from '../../env';
import type { HighlightRequest } from '../../search/engine/highlight';
import { ApiError } from '../../errors';
import type { Filter, SearchRequest } from '../../search/engine/types';
import type { RequestedRatio } from '../../search/hybrid-search';
import {
  knownUrl,
  openPublicApp,
  publicSearch,
  publicSuggest,
  rememberedAtOnce,
  rememberedRead,
  type PublicAnswer,
  type PublicApp,
  type PublicRequest,
} from '../../search/public-reads';
import { answerEnd } from '../../search/edge-cache';
import { splice } from '../../search/gzip-splice';
import { searchRequestOfBody } from '../../search/search-request';
import { assertNotReserved, codeParam, parseJsonBody, parseOrThrow } from '../../validation';
import { searchBody, searchQuery, suggestInput } from '../../contract';
import { FACET_LIMIT_PREFIX, FACET_PATH_PREFIX, FILTER_PREFIX, RANGE, rangeBound } from '../../contract/search-query-string';
import { clientIp } from '../middleware';

/** GET answers may be reused briefly by browsers and caches: results change only when the index does. */
const GET_CACHE_CONTROL = 'public, max-age=5';

/** The headers of every GET answer: JSON, open to browsers of any origin (CORS), briefly cacheable. */
const GET_HEADERS = {
  'Content-Type': 'application/json',
  'Access-Control-Allow-Origin': '*',
  'Cache-Control': GET_CACHE_CONTROL,
  // Repeated answers are gzip for clients that prefer it.
  Vary: 'Accept-Encoding',
};

/** A search request as the routes read it: the engine's request, highlighting, the caller's request id and the semanticRatio asked for. */
type SearchCall = SearchRequest & HighlightRequest & { requestId?: string; semantic: RequestedRatio };

/** Query parameters: single ones as strings (the first when repeated), `f.{id}` as filters. */
function fromQueryString(c: Context<AppEnv>): SearchCall {
  const all = c.req.queries();
  const singles: Record<string, string> = Object.create(null);
  const filters = new Map<string, Filter>();
  // `facetLimit.{id}` and `facetPath.{id}`: one value per facet id.
  const perFacet = new Map([FACET_LIMIT_PREFIX, FACET_PATH_PREFIX].map((prefix) => [prefix, new Map<string, string>()]));
  for (const [name, values] of Object.entries(all)) {
    const prefix = [...perFacet.keys()].find((p) => name.startsWith(p));
    if (prefix) {
      const id = name.slice(prefix.length);
      for (const key of id.split('.')) assertNotReserved(key, name);
      perFacet.get(prefix)?.set(id, values[0]);
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
    { ...singles, facetLimits: byFacet(perFacet.get(FACET_LIMIT_PREFIX)), facetPaths: byFacet(perFacet.get(FACET_PATH_PREFIX)) },
    'query parameters',
  );
  return { ...query, filters: Object.fromEntries(filters), semantic: { ratio: semanticRatio, path: 'semanticRatio' } };
}

const byFacet = (values: Map<string, string> | undefined) => (values?.size ? Object.fromEntries(values) : undefined);

function fromBody(body: z.output<typeof searchBody>): SearchCall {
  return {
    ...searchRequestOfBody(body),
    requestId: body.requestId,
    semantic: { ratio: body.hybrid?.semanticRatio, path: 'hybrid.semanticRatio' },
  };
}

/** `Cache-Control: no-cache` (a hard reload): a freshly computed answer, from no memory or cache. */
const asksFresh = (cacheControl: string | null | undefined) => cacheControl != null && /no-cache/i.test(cacheControl);

/** The request as the public reads need it: its URL, method, caller's cache wish, continent and client address. */
function publicRequest(c: Context<AppEnv>): PublicRequest {
  return {
    env: c.env,
    db: c.var.db,
    clientIp: clientIp(c),
    url: c.req.url,
    cacheable: c.req.method === 'GET',
    fresh: asksFresh(c.req.header('Cache-Control')),
    continent: () => (c.req.raw.cf as IncomingRequestCfProperties | undefined)?.continent,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
  };
}

/** The path's search app; 400 for malformed codes, 404 when unknown. */
function openApp(c: Context<AppEnv>, request: PublicRequest): Promise<PublicApp> {
  const tenant = parseOrThrow(codeParam, c.req.param('tenant'), 'path parameters');
  const code = parseOrThrow(codeParam, c.req.param('code'), 'path parameters');
  return openPublicApp(request, tenant, code);
}

/** `prefersGzip`'s verdicts by the client's `Accept-Encoding`: clients send few distinct lists. */
const gzipVerdicts = new Map<string, boolean>();
const MAX_VERDICTS = 64;

/**
 * Whether the client prefers gzip to brotli (and to no encoding): the first of them by weight, then by order, as
 * Cloudflare's front line and wrangler dev pick one. Both replace the worker's `Accept-Encoding`; the client's own is
 * `cf.clientAcceptEncoding`.
 */
function prefersGzip(request: Request): boolean {
  const accepted = (request.cf as IncomingRequestCfProperties | undefined)?.clientAcceptEncoding ?? '';
  let verdict = gzipVerdicts.get(accepted);
  if (verdict === undefined) {
    if (gzipVerdicts.size >= MAX_VERDICTS) gzipVerdicts.clear();
    gzipVerdicts.set(accepted, (verdict = preferredCoding(accepted) === 'gzip'));
  }
  return verdict;
}

function preferredCoding(accepted: string): string | undefined {
  let preferred: { coding: string; weight: number } | undefined;
  for (const element of accepted.split(',')) {
    const [coding, ...parameters] = element.split(';').map((part) => part.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== 'br' && coding !== 'identity') continue;
    const weight = Number(parameters.find((parameter) => parameter.startsWith('q='))?.slice(2) ?? 1);
    if (weight > 0 && (!preferred || weight > preferred.weight)) preferred = { coding, weight };
  }
  return preferred?.coding;
}

/**
 * The one answer shape around a serialized result: spliced as text, so the result is never parsed in the worker. A
 * repeated answer goes to clients that prefer gzip as its end compressed once behind the head of this request
 * (`encodeBody: 'manual'`: sent as it is); any other is sent as JSON, which Cloudflare compresses for clients that ask.
 * Every header goes into the one `Response` (`publicHeaders`' included), none set on it afterwards.
 */
function answer(request: Request, started: number, requestId: string | undefined, name: 'result' | 'suggestions', found: PublicAnswer) {
  const head = `{"statusCode":200,"requestId":${JSON.stringify(requestId ?? crypto.randomUUID())},"time":${Date.now() - started},"${name}":`;
  const headers: Record<string, string> =
    request.method === 'GET'
      ? { ...GET_HEADERS, 'X-Edge-Cache': found.cache }
      : { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*', 'X-Edge-Cache': found.cache };
  if (found.servedBy) headers['X-Search-Replica'] = found.servedBy;
  if (found.compressedEnd && prefersGzip(request)) {
    headers['Content-Encoding'] = 'gzip';
    return new Response(splice(head, found.compressedEnd), { headers, encodeBody: 'manual' });
  }
  return new Response(head + answerEnd(found.json), { headers });
}

async function answerSearch(c: Context<AppEnv>, call: SearchCall, opened?: PublicApp) {
  const started = Date.now();
  const request = publicRequest(c);
  const app = opened ?? (await openApp(c, request));
  const { requestId, semantic, ...search } = call;
  return answer(c.req.raw, started, requestId, 'result', await publicSearch(request, app, search, semantic, requestId));
}

/**
 * A GET search or suggest. A repeat of the very URL answered before (same app settings) is answered from this isolate's
 * memory of answers before its query is parsed again (at once, before routing, by `repeatAtOnce`; here once the app's
 * row, rate limit or index version was waited on); any other goes the whole way (`whole`, with the app if opened).
 */
function answerGet(c: Context<AppEnv>, whole: (opened?: PublicApp) => Promise<Response>) {
  const started = Date.now();
  const request = publicRequest(c);
  const known = knownUrl(request);
  // Only a URL answered before skips ahead: any other is parsed first, its bad query a 400 before the app is looked up.
  if (!known) return whole();
  // The URL passed validation when it was first answered, its path and requestId included.
  return (async () => {
    const app = await openPublicApp(request, known.tenant, known.code);
    const remembered = await rememberedRead(request, app, known);
    if (remembered) return answer(c.req.raw, started, known.requestId, known.field, remembered);
    return whole(app);
  })();
}

async function answerSuggest(c: Context<AppEnv>, input: z.output<typeof suggestInput>, opened?: PublicApp) {
  const started = Date.now();
  const request = publicRequest(c);
  const app = opened ?? (await openApp(c, request));
  const { requestId, q, rows } = input;
  return answer(c.req.raw, started, requestId, 'suggestions', await publicSuggest(request, app, { q, rows }, requestId));
}

/**
 * A repeat of a GET search or suggest URL this isolate answered before, answered before Hono routes the request when all
 * it takes is at hand (`rememberedAtOnce`: the app row and index version trusted, no rate limit to ask, the answer
 * remembered): the same answer the route gives, without the router, the middleware and the route's request object.
 * Undefined for every other request (a fresh one, one with a body, one to wait on), which goes through Hono.
 */
export function repeatAtOnce(request: Request, env: Env, ctx: ExecutionContext): Response | undefined {
  if (request.method !== 'GET') return undefined;
  const known = knownUrl({ url: request.url, cacheable: true, fresh: false });
  // A body is held to its limit by the middleware (a GET search reads none).
  if (!known || request.body !== null || asksFresh(request.headers.get('Cache-Control'))) return undefined;
  const started = Date.now();
  const found = rememberedAtOnce({ env, db: createDb(env.DB), waitUntil: (promise) => ctx.waitUntil(promise) }, known);
  return found && answer(request, started, known.requestId, known.field, found);
}

const suggestQuery = (c: Context<AppEnv>) =>
  parseOrThrow(suggestInput, { q: c.req.query('q'), rows: c.req.query('rows'), requestId: c.req.query('requestId') }, 'query parameters');

/** A POST suggest body is a whole SearchQuery (the contract): its other fields pass, unused. */
const suggestBody = suggestInput.passthrough();

const preflight = cors({ origin: '*', allowMethods: ['GET', 'POST', 'OPTIONS'], allowHeaders: ['Content-Type'], maxAge: 86400 });

/**
 * Open to browsers of any origin (CORS), and GET answers cacheable briefly. Answers (`answer`) carry these headers
 * already; errors get them here, onto the response as it is (Hono's `cors` and `c.header` would build the response
 * again once or twice per request).
 */
const publicHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === 'OPTIONS') return preflight(c, next);
  await next();
  // Answers (`answer`) carry `X-Edge-Cache` and their headers already; errors have neither.
  if (c.res.headers.has('X-Edge-Cache')) return;
  c.res.headers.set('Access-Control-Allow-Origin', '*');
  if (c.req.method === 'GET' && c.res.status === 200) {
    c.res.headers.set('Cache-Control', GET_CACHE_CONTROL);
    c.res.headers.set('Vary', 'Accept-Encoding');
  }
};

export const searchRoutes = new Hono<AppEnv>()
  .use('*', publicHeaders)
  .get('/suggest/:tenant/:code', (c) => answerGet(c, (app) => answerSuggest(c, suggestQuery(c), app)))
  .post('/suggest/:tenant/:code', async (c) => answerSuggest(c, await parseJsonBody(() => c.req.json(), suggestBody)))
  .get('/:tenant/:code', (c) => answerGet(c, (app) => answerSearch(c, fromQueryString(c), app)))
  .post('/:tenant/:code', async (c) => answerSearch(c, fromBody(await parseJsonBody(() => c.req.json(), searchBody))));
