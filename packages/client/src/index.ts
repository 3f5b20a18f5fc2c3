/**
 * `@edge-search/client`: a typed client of the edge search service for browsers, Node and Workers (fetch only).
 *
 * ```ts
 * const client = createClient({ url: 'https://search.example.com', tenant: 'acme', app: 'shop', token: feedingToken });
 * const { result } = await client.search({ q: 'running shoes', rows: 10 });
 * ```
 */
export { createClient, EdgeSearchClient, PENDING_STATES, type EdgeSearchOptions, type WaitOptions } from './client.ts';
export {
  DEFAULT_CHUNK_SIZE,
  DEFAULT_CONCURRENCY,
  feedInChunks,
  type FeedOptions,
  type FeedProgress,
  type FeedSummary,
  type RejectedEntry,
} from './feed.ts';
export { EdgeSearchError, TOKEN_HEADER, type ClientOptions, type RequestOptions, type TokenKind } from './http.ts';
export type * from '../../../src/contract/index.ts';
