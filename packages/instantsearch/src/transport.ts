/**
 * The two service calls the adapter needs, search and suggest of one tenant's search apps; by default the
 * typed client `@edge-search/client` (one HTTP layer for the adapter and the CLI). Anything with the same two
 * calls (a test's recorder) can stand in.
 */
import { EdgeSearchClient, type SearchBody, type SearchFilter, type SearchResponse, type SuggestResponse } from '@edge-search/client';

export type { SearchBody, SearchFilter };
export type SearchResult = SearchResponse['result'];

export interface SearchTransport {
  search(app: string, body: SearchBody): Promise<Pick<SearchResponse, 'result'>>;
  suggest(app: string, q: string, rows: number): Promise<Pick<SuggestResponse, 'suggestions'>>;
}

export interface ClientTransportOptions {
  /** Base address of the service, e.g. `https://search.example.com`. */
  url: string;
  tenant: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/** The service's public search calls through the typed client, one client per search app. */
export function clientTransport(options: ClientTransportOptions): SearchTransport {
  const clients = new Map<string, EdgeSearchClient>();
  const clientOf = (app: string) => {
    let client = clients.get(app);
    if (!client) clients.set(app, (client = new EdgeSearchClient({ url: options.url, tenant: options.tenant, app, fetch: options.fetch })));
    return client;
  };
  return {
    search: (app, body) => clientOf(app).search(body),
    suggest: (app, q, rows) => clientOf(app).suggest(q, { rows }),
  };
}
