/**
 * One InstantSearch query as one service search: page 0-based to 1-based, `hitsPerPage` to `rows`, the
 * index name `app` or `app:sort` to the app and its named sort, filters, facets and highlighting options.
 */
import type { AlgoliaRequest, FacetFilters } from './algolia';
import { facetIdOf, levelOf, openedPath, translateFilters } from './filters';
import type { SearchBody } from './transport';

/** Algolia's default page size. */
export const DEFAULT_HITS_PER_PAGE = 20;
/** The service's largest page. */
export const MAX_ROWS = 100;
/**
 * Values of a hierarchical menu's facet filtered in a way no one open path describes: every level shares one
 * categories facet on the service, counted by value over all levels, so the top values of one level or the
 * children of one path can sit anywhere in its order.
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
 * What the service is asked of each facet beyond `maxValuesPerFacet`: a hierarchical menu's facet only the levels
 * the menu shows (`facetPaths`: the top and the children along its refined path, `maxValuesPerFacet` per level),
 * or all its values when no one path describes its filters; a `statsOnly` facet no values (a range widget reads
 * only its stats).
 */
function facetOptionsOf(
  facetAttributes: string[] | undefined,
  facetFilters: FacetFilters | undefined,
  statsOnly: ReadonlySet<string>,
): Pick<SearchBody, 'facetLimits' | 'facetPaths'> {
  const limits: Record<string, number> = {};
  const paths: Record<string, string> = {};
  for (const attribute of facetAttributes ?? statsOnly) {
    const id = facetIdOf(attribute);
    if (levelOf(attribute) === undefined) {
      if (statsOnly.has(attribute)) limits[attribute] = 0;
      continue;
    }
    const path = openedPath(facetFilters, id);
    if (path === undefined) limits[id] = HIERARCHICAL_FACET_LIMIT;
    else paths[id] = path;
  }
  const some = <T>(record: Record<string, T>) => (Object.keys(record).length ? record : undefined);
  return { facetLimits: some(limits), facetPaths: some(paths) };
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
    ...facetOptionsOf(facetAttributes, params.facetFilters, statsOnly),
    attributesToRetrieve: list(params.attributesToRetrieve),
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
