/**
 * The `searchClient` InstantSearch.js 4 and react-instantsearch take. InstantSearch sends, per keystroke, a
 * hits query plus one extra query per refined disjunctive facet (and per parent level of a refined
 * hierarchical menu) asking the counts without that facet's own refinement. The service's facets are
 * disjunctive already (each facet is counted without its own `or` or range filter), so the extra queries are
 * answered from the hits query's answer: one keystroke is one round trip per index.
 */
import type { AlgoliaRequest, AlgoliaResponse, AlgoliaResult } from './algolia';
import { requestedFacets, toSearchBody } from './requests';
import { toAlgoliaResult } from './responses';
import { clientTransport, type ClientTransportOptions, type SearchResult, type SearchTransport } from './transport';

export interface EdgeSearchClientOptions extends ClientTransportOptions {
  /** Another way to reach the service (a test's recorder); by default the typed client on `url`. */
  transport?: SearchTransport;
  /**
   * Numeric facets shown only as ranges (rangeSlider, rangeInput): the service is asked their `facetStats`
   * and none of their values, which no range widget reads.
   */
  statsOnly?: string[];
}

/** What InstantSearch calls on a search client. */
export interface InstantSearchClient {
  search(requests: readonly AlgoliaRequest[]): Promise<AlgoliaResponse>;
  clearCache(): Promise<void>;
  /** The service calls behind the last `search` (for tests and diagnostics). */
  readonly transport: SearchTransport;
}

/** A hits query and the extra facet queries that travel with it (answered from the same server call). */
interface Group {
  main: AlgoliaRequest;
  positions: number[];
  facets: Set<string> | undefined;
}

/** Extra facet queries of InstantSearch ask no hits, for the same index and text as the query before them. */
function isExtraFacetQuery(request: AlgoliaRequest, main: AlgoliaRequest): boolean {
  const params = request.params ?? {};
  return (
    request.indexName === main.indexName &&
    params.hitsPerPage === 0 &&
    params.page === 0 &&
    params.analytics === false &&
    (params.query ?? '') === (main.params?.query ?? '')
  );
}

function groupRequests(requests: readonly AlgoliaRequest[]): Group[] {
  const groups: Group[] = [];
  requests.forEach((request, position) => {
    const current = groups.at(-1);
    const facets = requestedFacets(request);
    if (current && isExtraFacetQuery(request, current.main)) {
      current.positions.push(position);
      if (current.facets) for (const facet of facets ?? []) current.facets.add(facet);
      if (!facets) current.facets = undefined;
    } else groups.push({ main: request, positions: [position], facets: facets && new Set(facets) });
  });
  return groups;
}

/**
 * A searchClient for InstantSearch over one tenant of the service: index names are search app codes,
 * `app:sort` for a named sort of the app (for `sortBy` items).
 *
 * @example
 * ```ts
 * const search = instantsearch({ indexName: 'catalog', searchClient: edgeSearchClient({ url: 'https://search.example.com', tenant: 'demo' }) });
 * ```
 */
export function edgeSearchClient(options: EdgeSearchClientOptions): InstantSearchClient {
  const transport = options.transport ?? clientTransport(options);
  const statsOnly = new Set(options.statsOnly);
  return {
    transport,
    async search(requests) {
      const results: AlgoliaResult[] = new Array(requests.length);
      await Promise.all(
        groupRequests(requests).map(async (group) => {
          const { app, body } = toSearchBody(group.main, group.facets && [...group.facets], statsOnly);
          const { result }: { result: SearchResult } = await transport.search(app, body);
          for (const position of group.positions) results[position] = toAlgoliaResult(requests[position], result);
        }),
      );
      return { results };
    },
    async clearCache() {},
  };
}
