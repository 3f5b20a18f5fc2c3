/**
 * The search page of a search app (`/ui/{tenant}/{code}`): InstantSearch.js on the service through
 * `@edge-search/instantsearch`, widgets drawn from the configuration the worker inlines (src/search/search-page.ts),
 * the state in the URL (`?q=…&section=editors&installedSize=100:5000&sort=…&page=2`).
 */
import instantsearch from 'instantsearch.js';
import { connectSearchBox } from 'instantsearch.js/es/connectors';
import { history } from 'instantsearch.js/es/lib/routers';
import {
  clearRefinements,
  configure,
  currentRefinements,
  pagination,
  rangeInput,
  rangeSlider,
  sortBy,
  stats,
  toggleRefinement,
} from 'instantsearch.js/es/widgets';
import type { UiState } from 'instantsearch.js';
import { clientTransport, edgeSearchClient, suggestionsSource, SORT_SEPARATOR } from '@edge-search/instantsearch';
import type { SearchPageConfig } from '../src/search/search-page';
import { HIERARCHY_LEVELS } from '../src/search/search-page';
import { hits } from './hits';
import { hierarchicalMenu } from './hierarchical-menu';
import { refinementList } from './refinement-list';
import { timedSearchClient, timedWidget } from './timings';

const SNIPPET_WORDS = 30;
const HITS_PER_PAGE = 10;

const configElement = document.getElementById('search-page-config');
if (!configElement) throw new Error('Open the search page as /ui/{tenant}/{code}');
const config = JSON.parse(configElement.textContent ?? '{}') as SearchPageConfig;
document.title = `${config.title} – search`;

/** An element of search.html. */
function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`search.html has no #${id}`);
  return found;
}
element('title').textContent = config.title;

const transport = clientTransport({ url: location.origin, tenant: config.tenant });
const levels = (attribute: string) => Array.from({ length: HIERARCHY_LEVELS }, (_, i) => `${attribute}.lvl${i}`);
const indexOf = (sort: string) => (sort ? `${config.app}${SORT_SEPARATOR}${sort}` : config.app);

/** A titled container in the facet column for one widget. */
function facetContainer(attribute: string): HTMLElement {
  const section = document.createElement('div');
  section.className = 'facet';
  section.dataset.facet = attribute;
  const heading = document.createElement('h2');
  heading.textContent = attribute;
  const body = document.createElement('div');
  section.append(heading, body);
  element('facets').append(section);
  return body;
}

type RouteState = Record<string, string | string[] | undefined>;
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';
const all = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The page's URL state: `q`, `page`, `sort`, and one parameter per facet named by its field code. */
const stateMapping = {
  stateToRoute(uiState: UiState): RouteState {
    const state = uiState[config.app] ?? {};
    const route: RouteState = { q: state.query || undefined, page: state.page && state.page > 1 ? String(state.page) : undefined };
    if (state.sortBy && state.sortBy !== config.app) route.sort = state.sortBy.slice(config.app.length + 1);
    for (const attribute of config.refinementLists) route[attribute] = state.refinementList?.[attribute];
    for (const attribute of config.hierarchicalMenus) route[attribute] = state.hierarchicalMenu?.[`${attribute}.lvl0`]?.join('/');
    for (const attribute of config.ranges) route[attribute] = state.range?.[attribute] || undefined;
    for (const attribute of config.toggles) route[attribute] = state.toggle?.[attribute] ? 'true' : undefined;
    return route;
  },
  routeToState(route: RouteState): UiState {
    const pick = <T>(attributes: string[], read: (value: string | string[] | undefined) => T) =>
      Object.fromEntries(attributes.filter((a) => route[a] !== undefined).map((a) => [a, read(route[a])]));
    return {
      [config.app]: {
        query: first(route.q) || undefined,
        page: route.page ? Number(first(route.page)) : undefined,
        sortBy: route.sort ? indexOf(first(route.sort)) : undefined,
        refinementList: pick(config.refinementLists, all),
        hierarchicalMenu: Object.fromEntries(
          config.hierarchicalMenus.filter((a) => route[a]).map((a) => [`${a}.lvl0`, first(route[a]).split('/')]),
        ),
        range: pick(config.ranges, first),
        toggle: pick(config.toggles, (value) => first(value) === 'true'),
      },
    };
  },
};

const search = instantsearch({
  indexName: config.app,
  searchClient: timedSearchClient(edgeSearchClient({ url: location.origin, tenant: config.tenant, transport, statsOnly: config.ranges })),
  future: { preserveSharedStateOnUnmount: true },
  routing: {
    router: history<RouteState>({
      cleanUrlOnDispose: false,
      createURL: ({ qsModule, routeState, location }) =>
        `${location.pathname}${qsModule.stringify(routeState, { addQueryPrefix: true, arrayFormat: 'repeat' })}`,
      parseURL: ({ qsModule, location }) => qsModule.parse(location.search.slice(1)) as RouteState,
    }),
    stateMapping,
  },
});

/** Who waits for the answer to a query to be drawn (one at a time: a newer keystroke replaces the waiter). */
let renderWaiter: { query: string; done: () => void } | undefined;

/** Resolves once the results for `query` are drawn, or a search failed, or a newer keystroke waits instead. */
function whenRendered(query: string): Promise<void> {
  renderWaiter?.done();
  return new Promise((done) => (renderWaiter = { query, done }));
}

/** The search box, with completions from the service's suggest under it. */
const searchBoxWithSuggestions = connectSearchBox(({ query, refine }, isFirstRender) => {
  const container = element('searchbox');
  const list = element('suggestions');
  if (isFirstRender) {
    const input = document.createElement('input');
    input.type = 'search';
    input.placeholder = `Search ${config.title}`;
    input.autocomplete = 'off';
    input.setAttribute('aria-label', 'Search');
    container.append(input);
    const source = suggestionsSource(transport, config.app);
    let asked = 0;
    const choose = (value: string) => {
      input.value = value;
      list.hidden = true;
      refine(value);
    };
    input.addEventListener('input', async () => {
      refine(input.value);
      const ticket = ++asked;
      // Results first: suggest waits for them, so it never queues ahead of the search (one Durable Object answers both).
      await whenRendered(input.value);
      if (ticket !== asked) return;
      const items = await source.getItems({ query: input.value }).catch(() => []);
      if (ticket !== asked) return; // a later keystroke has asked already
      list.replaceChildren(
        ...items.map((item) => {
          const option = document.createElement('li');
          option.setAttribute('role', 'option');
          option.textContent = source.getItemInputValue({ item });
          option.addEventListener('mousedown', (event) => {
            event.preventDefault();
            choose(option.textContent ?? '');
          });
          return option;
        }),
      );
      list.hidden = items.length === 0 || document.activeElement !== input;
      list.dataset.query = input.value;
    });
    input.addEventListener('blur', () => (list.hidden = true));
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') list.hidden = true;
    });
  }
  const input = container.querySelector('input');
  if (input && document.activeElement !== input) input.value = query;
});

const hitDetails = (hit: Record<string, unknown>) =>
  config.hitDetails
    .filter((code) => hit[code] !== undefined && hit[code] !== null && hit[code] !== '')
    .map((code) => `${code}: ${Array.isArray(hit[code]) ? (hit[code] as unknown[]).join(', ') : String(hit[code])}`)
    .join(' · ');

search.addWidgets(
  [
    configure({
      hitsPerPage: HITS_PER_PAGE,
      // Only what the hit template draws: the title highlighted, the text as a snippet, the details line's fields
      // as they are (the title and text come in their highlight and snippet, so the documents leave them out).
      attributesToRetrieve: config.hitDetails,
      attributesToHighlight: config.hitTitle ? [config.hitTitle] : [],
      ...(config.hitText ? { attributesToSnippet: [`${config.hitText}:${SNIPPET_WORDS}`] } : {}),
    }),
    searchBoxWithSuggestions({}),
    stats({ container: '#stats' }),
    sortBy({ container: '#sort', items: config.sorts.map((sort) => ({ value: indexOf(sort.id), label: sort.label })) }),
    currentRefinements({ container: '#current' }),
    clearRefinements({ container: '#clear' }),
    hits({ container: element('hits'), title: config.hitTitle, text: config.hitText, details: hitDetails }),
    pagination({ container: '#pagination' }),
    ...config.toggles.map((attribute) =>
      toggleRefinement({ container: facetContainer(attribute), attribute, templates: { labelText: attribute } }),
    ),
    ...config.hierarchicalMenus.map((attribute) =>
      hierarchicalMenu({ container: facetContainer(attribute), attributes: levels(attribute), separator: '/', limit: 10, showMore: true }),
    ),
    ...config.refinementLists.map((attribute) =>
      refinementList({ container: facetContainer(attribute), attribute, limit: 8, showMore: true }),
    ),
    ...config.ranges.flatMap((attribute) => {
      const container = facetContainer(attribute);
      const [slider, input] = [document.createElement('div'), document.createElement('div')];
      container.append(slider, input);
      return [rangeSlider({ container: slider, attribute, pips: false }), rangeInput({ container: input, attribute })];
    }),
  ].map((widget) => timedWidget(widget)),
);

// Marks the query whose answer the widgets have just drawn: the browser tests and the keystroke-to-results
// benchmark (scripts/bench/search-page.mjs) wait for it.
search.on('render', () => {
  // The render as the first search starts has no answer yet: nothing to mark.
  const results = search.helper?.lastResults;
  if (!results) return;
  const query = results.query ?? '';
  document.body.dataset.renderedQuery = query;
  if (renderWaiter?.query === query) renderWaiter.done();
});
search.on('error', () => renderWaiter?.done());

search.start();
