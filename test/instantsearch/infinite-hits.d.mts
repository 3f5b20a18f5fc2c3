/** What the infiniteHits connector renders with (the parts the tests read). */
export interface InfiniteHitsState {
  items: Array<{ objectID: string }>;
  showMore(): void;
  isLastPage: boolean;
}

/** Starts InstantSearch with `hitsPerPage` and an infiniteHits connector; `state()` is its last render. */
export function startInfiniteHits(
  searchClient: unknown,
  indexName: string,
  hitsPerPage: number,
): { state(): InfiniteHitsState | undefined; dispose(): void };
