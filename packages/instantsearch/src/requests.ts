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
/** Values per facet when a hierarchical level is asked: every level shares one facet on the service. */
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

/** The service's search body for a query (the hits query of a group; its extra facet queries add `facets`). */
export function toSearchBody(request: AlgoliaRequest, facetAttributes: string[] | undefined): { app: string; body: SearchBody } {
  const params = request.params ?? {};
  const { app, sort } = parseIndexName(request.indexName);
  const hitsPerPage = params.hitsPerPage ?? DEFAULT_HITS_PER_PAGE;
  const hierarchical = facetAttributes?.some((attribute) => levelOf(attribute) !== undefined);
  const body: SearchBody = {
    q: params.query || undefined,
    page: (params.page ?? 0) + 1,
    rows: Math.min(Math.max(hitsPerPage, 1), MAX_ROWS),
    sort,
    filters: translateFilters(params.facetFilters, params.numericFilters),
    facets: facetAttributes && [...new Set(facetAttributes.map(facetIdOf))],
    facetLimit: hierarchical ? HIERARCHICAL_FACET_LIMIT : params.maxValuesPerFacet,
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
