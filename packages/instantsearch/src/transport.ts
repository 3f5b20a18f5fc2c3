/**
 * The HTTP side the adapter needs: search and suggest of one tenant's search apps. `fetchTransport` speaks
 * to the service's public search API; anything with the same two calls (a typed client, a test double of
 * the network) can stand in.
 */
import type { Filter, SearchResult, Suggestion } from '../../../src/search/engine/types';

export type { Filter, SearchResult, Suggestion };

/** The POST body of `/api/v1/search/{tenant}/{app}` the adapter sends. */
export interface SearchBody {
  q?: string;
  page?: number;
  rows?: number;
  sort?: string;
  filters?: Record<string, Filter>;
  facets?: string[];
  facetLimit?: number;
  attributesToHighlight?: string[];
  attributesToSnippet?: string[];
  highlightPreTag?: string;
  highlightPostTag?: string;
}

export interface SearchTransport {
  search(app: string, body: SearchBody): Promise<{ result: SearchResult }>;
  suggest(app: string, q: string, rows: number): Promise<{ suggestions: Suggestion[] }>;
}

export interface FetchTransportOptions {
  /** Base address of the service, e.g. `https://search.example.com`. */
  url: string;
  tenant: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/** An answer other than 2xx, with the service's error body. */
export class EdgeSearchHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const message = (body as { message?: unknown } | undefined)?.message;
    super(typeof message === 'string' ? message : `the search service answered ${status}`);
    this.name = 'EdgeSearchHttpError';
  }
}

/** The service's public search API over `fetch` (JSON POSTs, no token). */
export function fetchTransport(options: FetchTransportOptions): SearchTransport {
  const base = options.url.replace(/\/+$/, '');
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await (options.fetch ?? fetch)(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw new EdgeSearchHttpError(response.status, answer);
    return answer as T;
  };
  const path = (app: string) => `${encodeURIComponent(options.tenant)}/${encodeURIComponent(app)}`;
  return {
    search: (app, body) => post(`/api/v1/search/${path(app)}`, body),
    suggest: (app, q, rows) => post(`/api/v1/search/suggest/${path(app)}`, { q, rows }),
  };
}
