/**
 * Query suggestions from the service's suggest call, as a source of Algolia Autocomplete
 * (`@algolia/autocomplete-js` `getSources`) or of any search box that lists completions.
 */
import type { SearchTransport } from './transport';

type Suggestion = { value: string; count: number };

export interface SuggestionsSource {
  sourceId: string;
  getItems(params: { query: string }): Promise<Suggestion[]>;
  getItemInputValue(params: { item: Suggestion }): string;
}

/** Completions of the typed words of `app`, most documents first; nothing for an empty query. */
export function suggestionsSource(transport: SearchTransport, app: string, rows = 5): SuggestionsSource {
  return {
    sourceId: 'suggestions',
    async getItems({ query }) {
      if (!query.trim()) return [];
      return (await transport.suggest(app, query, rows)).suggestions;
    },
    getItemInputValue: ({ item }) => item.value,
  };
}
