// InstantSearch.js's infiniteHits connector, headless, on a searchClient. Plain JavaScript with its own declarations:
// instantsearch.js's types bring the DOM's, which clash with the Workers types the tests are checked with.
import instantsearch from 'instantsearch.js';
import { connectInfiniteHits } from 'instantsearch.js/es/connectors';
import { configure } from 'instantsearch.js/es/widgets';

export function startInfiniteHits(searchClient, indexName, hitsPerPage) {
  let latest;
  const search = instantsearch({ indexName, searchClient });
  search.addWidgets([configure({ hitsPerPage }), connectInfiniteHits((state) => (latest = state))({})]);
  search.start();
  return { state: () => latest, dispose: () => search.dispose() };
}
