/** How a search body of the contract becomes the engine's request: one mapping for the route and the engine bench. */
import type { z } from 'zod';
import type { searchBody } from '../contract';
import type { HighlightRequest } from './engine/highlight';
import type { SearchRequest } from './engine/types';

/** The engine's request, highlighting included, that a POST search body asks for (`sort` as a name or `{ sort }`). */
export function searchRequestOfBody(body: z.output<typeof searchBody>): SearchRequest & HighlightRequest {
  const sort = typeof body.sort === 'string' ? body.sort : body.sort?.sort;
  return {
    q: body.q,
    page: body.page,
    rows: body.rows,
    sort: sort || undefined,
    filters: body.filters,
    facetLimit: body.facetLimit,
    facetLimits: body.facetLimits,
    facetPaths: body.facetPaths,
    facets: body.facets,
    attributesToRetrieve: body.attributesToRetrieve,
    attributesToHighlight: body.attributesToHighlight,
    attributesToSnippet: body.attributesToSnippet,
    highlightPreTag: body.highlightPreTag,
    highlightPostTag: body.highlightPostTag,
  };
}
