import algoliasearchHelper, { type SearchResults } from 'algoliasearch-helper';
import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientTransport, edgeSearchClient, suggestionsSource, type SearchBody, type SearchTransport } from '@edge-search/instantsearch';
import { BASE, waitFor } from '../helpers';
import { bulk, debianEnvelopes, feedingApp } from '../feeding/helpers';
import { startInfiniteHits } from './infinite-hits.mjs';

const DOCUMENTS = 600;
const envelopes = debianEnvelopes.slice(0, DOCUMENTS);
const payloads = new Map(envelopes.map((e) => [e.header.id, e.payload]));

let transport: SearchTransport;
let calls: SearchBody[] = [];
let tenant = '';
let app = '';

beforeAll(async () => {
  const feeding = await feedingApp();
  ({ tenant, code: app } = feeding);
  expect((await bulk(feeding, envelopes)).status).toBe(200);
  await waitFor(
    () => feeding.searchApp.stats(),
    (stats) => stats.indexed === DOCUMENTS,
    60_000,
  );
  const http = clientTransport({ url: BASE, tenant, fetch: (input, init) => exports.default.fetch(new Request(input, init)) });
  transport = {
    search: (searchApp, body) => {
      calls.push(body);
      return http.search(searchApp, body);
    },
    suggest: (searchApp, q, rows) => http.suggest(searchApp, q, rows),
  };
});

/** Runs one search through the real algoliasearch-helper (what InstantSearch drives) on our searchClient. */
function helperSearch(configure: (helper: ReturnType<typeof algoliasearchHelper>) => void, index = app): Promise<SearchResults> {
  const client = edgeSearchClient({ url: BASE, tenant, transport });
  const helper = algoliasearchHelper(client as never, index, {
    disjunctiveFacets: ['section', 'essential', 'installedSize'],
    hierarchicalFacets: [{ name: 'tags', attributes: ['tags.lvl0', 'tags.lvl1'], separator: '/' }],
    hitsPerPage: 10,
    highlightPreTag: '<em>',
    highlightPostTag: '</em>',
  });
  configure(helper);
  calls = [];
  return new Promise((resolve, reject) => {
    helper.once('result', ({ results }) => resolve(results));
    helper.once('error', ({ error }) => reject(error));
    helper.search();
  });
}

const countOf = (section: string) => envelopes.filter((e) => e.payload.section === section).length;

describe('InstantSearch on the running worker', () => {
  it('finds a misspelled query with highlighted hits, in one service call', async () => {
    const results = await helperSearch((h) => h.setQuery('pythn'));
    expect(calls).toHaveLength(1);
    expect(results.nbHits).toBeGreaterThan(0);
    const hit = results.hits[0] as any;
    expect(payloads.has(hit.objectID)).toBe(true);
    expect(JSON.stringify(hit._highlightResult)).toMatch(/<em>python/i);
  });

  it('counts a refined disjunctive facet without its own refinement, hits with it, still one call', async () => {
    const results = await helperSearch((h) => h.addDisjunctiveFacetRefinement('section', 'games'));
    expect(calls).toHaveLength(1);
    expect(results.nbHits).toBe(countOf('games'));
    const sections = results.getFacetValues('section', { sortBy: ['count:desc'] }) as Array<{
      name: string;
      count: number;
      isRefined: boolean;
    }>;
    expect(sections.find((s) => s.name === 'libs')?.count).toBe(countOf('libs'));
    expect(sections.find((s) => s.name === 'games')).toMatchObject({ count: countOf('games'), isRefined: true });
    expect(results.hits.every((hit) => payloads.get(hit.objectID)?.section === 'games')).toBe(true);
  });

  it('drills a hierarchical menu on a categories field', async () => {
    const results = await helperSearch((h) => h.toggleFacetRefinement('tags', 'interface/x11'));
    expect(calls).toHaveLength(1);
    const x11 = envelopes.filter((e) => (e.payload.tags as string[]).includes('interface/x11')).length;
    expect(results.nbHits).toBe(x11);
    const [root] = results.hierarchicalFacets;
    const interfaceNode = root.data!.find((node) => node.name === 'interface')!;
    expect(interfaceNode.isRefined).toBe(true);
    expect(interfaceNode.data!.find((node) => node.name === 'x11')).toMatchObject({ count: x11, isRefined: true });
    // Only the levels the menu shows travel: the top values and the children of `interface` (and of `interface/x11`).
    expect(calls[0].facetPaths).toEqual({ tags: 'interface/x11' });
    const interfaces = new Set(envelopes.flatMap((e) => (e.payload.tags as string[]).filter((tag) => tag.startsWith('interface/'))));
    // Fewer of each than the service's default limit of 50 values (per level), so all of them.
    expect(interfaceNode.data!.map((node) => `interface/${node.name}`).sort()).toEqual([...interfaces].sort());
    const tops = new Set(envelopes.flatMap((e) => (e.payload.tags as string[]).map((tag) => tag.split('/')[0])));
    expect(root.data!.map((node) => node.name).sort()).toEqual([...tops].sort());
  });

  it('filters a numeric range and keeps the whole span in the facet stats; toggles a boolean', async () => {
    const results = await helperSearch((h) =>
      h.addNumericRefinement('installedSize', '>=', 1000).addNumericRefinement('installedSize', '<=', 5000),
    );
    const inside = envelopes.filter((e) => (e.payload.installedSize as number) >= 1000 && (e.payload.installedSize as number) <= 5000);
    expect(results.nbHits).toBe(inside.length);
    const sizes = envelopes.map((e) => e.payload.installedSize as number);
    expect(results.getFacetStats('installedSize')).toMatchObject({ min: Math.min(...sizes), max: Math.max(...sizes) });
    const essential = await helperSearch((h) => h.addDisjunctiveFacetRefinement('essential', 'true'));
    expect(essential.nbHits).toBe(envelopes.filter((e) => e.payload.essential === true).length);
  });

  it('sorts with a sort index and pages', async () => {
    const results = await helperSearch((h) => h.setPage(1), `${app}:installedSize_desc`);
    expect(calls[0]).toMatchObject({ sort: 'installedSize_desc', page: 2, rows: 10 });
    const sizes = results.hits.map((hit) => hit.installedSize as number);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(results).toMatchObject({ page: 1, nbHits: DOCUMENTS, nbPages: DOCUMENTS / 10 });
  });

  it('completes a typed word from suggest', async () => {
    const source = suggestionsSource(transport, app);
    const items = await source.getItems({ query: 'pyth' });
    expect(items.length).toBeGreaterThan(0);
    expect(items[0].value).toMatch(/^pyth/);
    expect(source.getItemInputValue({ item: items[0] })).toBe(items[0].value);
    expect(await source.getItems({ query: ' ' })).toEqual([]);
  });

  it('loads more hits with infiniteHits: the next page appended, one service call per page', async () => {
    calls = [];
    const infinite = startInfiniteHits(edgeSearchClient({ url: BASE, tenant, transport }), app, 5);
    try {
      const shown = (count: number) =>
        waitFor(
          async () => infinite.state(),
          (state) => state?.items.length === count,
        );
      (await shown(5))!.showMore();
      const state = await shown(10);
      expect(calls.map((call) => [call.page, call.rows])).toEqual([
        [1, 5],
        [2, 5],
      ]);
      const firstTen = await transport.search(app, { rows: 10 });
      expect(state!.items.map((hit) => hit.objectID)).toEqual(firstTen.result.documents.map((d) => d.id));
      expect(state!.isLastPage).toBe(false);
    } finally {
      infinite.dispose();
    }
  });
});
