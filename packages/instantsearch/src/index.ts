/**
 * `@edge-search/instantsearch`: InstantSearch.js 4 and react-instantsearch on the edge search service.
 *
 * ```ts
 * import instantsearch from 'instantsearch.js';
 * import { edgeSearchClient } from '@edge-search/instantsearch';
 * const searchClient = edgeSearchClient({ url: 'https://search.example.com', tenant: 'demo' });
 * instantsearch({ indexName: 'catalog', searchClient });
 * ```
 */
export type * from './algolia';
export { facetIdOf, levelOf, translateFilters, UnsupportedFilterError } from './filters';
export { parseIndexName, toSearchBody, SORT_SEPARATOR } from './requests';
export { toAlgoliaResult } from './responses';
export { edgeSearchClient, type EdgeSearchClientOptions, type InstantSearchClient } from './search-client';
export { suggestionsSource, type SuggestionsSource } from './suggestions';
export { clientTransport, type ClientTransportOptions, type SearchBody, type SearchTransport } from './transport';
