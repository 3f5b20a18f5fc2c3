/**
 * One InstantSearch query as one service search: page 0-based to 1-based, `hitsPerPage` to `rows`, the
 * index name `app` or `app:sort` to the app and its named sort, filters, facets and highlighting options.
 */
import type { AlgoliaRequest } from './algolia';
import { facetIdOf, levelOf, translateFilters } from './filters';
import type { SearchBody } from './transport';

/** Algolia's default page size. */
export const DEFAULT_HITS_PER_PAGE = 20;
/** The service's largest page. */
export const MAX_ROWS = 100;
/**
 * Values of a hierarchical menu's facet: every level shares one categories facet on the service, counted by value
 * over all levels, so the top values of one level or the children of one path can sit anywhere in its order.
 */
export const HIERARCHICAL_FACET_LIMIT = 1000;
export const SORT_SEPARATOR = ':';

/** `catalog` is the app with relevance order, `catalog:price_asc` the same app sorted by its sort `price_asc`. */
export function parseIndexName(indexName: string): { app: string; sort?: string } {
  const at = indexName.indexOf(SORT_SEPARATOR);
  return at < 0 ? { app: indexName } : { app: indexName.slice(0, at), sort: indexName.slice(at + 1) || undefined };
}

const list = (value: string | string[] | undefined) => (value === undefined ? undefined : typeof value === 'string' ? [value] : value);

/** The facet attributes a query asks for; `*` (or none listed) means every facet. */
export function requestedFacets(request: AlgoliaRequest): string[] | undefined {
  const facets = list(request.params?.facets);
  return facets && !facets.includes('*') ? facets : undefined;
}

/**
 * Per facet, a value limit other than `maxValuesPerFacet`: all values of a hierarchical menu's facet, none of a
 * `statsOnly` facet (a range widget reads only its stats).
 */
function facetLimitsOf(facetAttributes: string[] | undefined, statsOnly: ReadonlySet<string>): Record<string, number> | undefined {
  const limits: Record<string, number> = {};
  for (const attribute of facetAttributes ?? statsOnly) {
    if (levelOf(attribute) !== undefined) limits[facetIdOf(attribute)] = HIERARCHICAL_FACET_LIMIT;
    else if (statsOnly.has(attribute)) limits[attribute] = 0;
  }
  return Object.keys(limits).length ? limits : undefined;
}

/**
 * The service's search body for a query (the hits query of a group; its extra facet queries add `facets`);
 * `statsOnly` facets are asked no values.
 */
export function toSearchBody(
  request: AlgoliaRequest,
  facetAttributes: string[] | undefined,
  statsOnly: ReadonlySet<string> = new Set(),
): { app: string; body: SearchBody } {
  const params = request.params ?? {};
  const { app, sort } = parseIndexName(request.indexName);
  const hitsPerPage = params.hitsPerPage ?? DEFAULT_HITS_PER_PAGE;
  const body: SearchBody = {
    q: params.query || undefined,
    page: (params.page ?? 0) + 1,
    rows: Math.min(Math.max(hitsPerPage, 1), MAX_ROWS),
    sort,
    filters: translateFilters(params.facetFilters, params.numericFilters),
    facets: facetAttributes && [...new Set(facetAttributes.map(facetIdOf))],
    facetLimit: params.maxValuesPerFacet,
    facetLimits: facetLimitsOf(facetAttributes, statsOnly),
    attributesToHighlight: list(params.attributesToHighlight) ?? ['*'],
    attributesToSnippet: list(params.attributesToSnippet),
    highlightPreTag: params.highlightPreTag,
    highlightPostTag: params.highlightPostTag,
  };
  return { app, body: dropUndefined(body) };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
