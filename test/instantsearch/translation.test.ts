import { describe, expect, it } from 'vitest';
import {
  edgeSearchClient,
  parseIndexName,
  toAlgoliaResult,
  toSearchBody,
  translateFilters,
  UnsupportedFilterError,
  type AlgoliaSearchParams,
  type SearchBody,
  type SearchTransport,
} from '@edge-search/instantsearch';
import type { SearchResult } from '../../src/search/engine/types';

describe('requests', () => {
  it('maps query, 0-based page, hitsPerPage, sort index, facets, facet limit and highlight options', () => {
    const { app, body } = toSearchBody(
      {
        indexName: 'catalog:installedSize_desc',
        params: {
          query: 'vim',
          page: 2,
          hitsPerPage: 12,
          maxValuesPerFacet: 7,
          highlightPreTag: '__ais-highlight__',
          highlightPostTag: '__/ais-highlight__',
          attributesToSnippet: ['description:15'],
          analytics: true,
        },
      },
      ['section', 'essential'],
    );
    expect(app).toBe('catalog');
    expect(body).toEqual({
      q: 'vim',
      page: 3,
      rows: 12,
      sort: 'installedSize_desc',
      filters: {},
      facets: ['section', 'essential'],
      facetLimit: 7,
      attributesToHighlight: ['*'],
      attributesToSnippet: ['description:15'],
      highlightPreTag: '__ais-highlight__',
      highlightPostTag: '__/ais-highlight__',
    });
    expect(parseIndexName('catalog')).toEqual({ app: 'catalog' });
  });

  it('passes attributesToRetrieve on as a list (a single attribute too), none asked = every field', () => {
    const body = (params: AlgoliaSearchParams) => toSearchBody({ indexName: 'catalog', params }, undefined).body;
    expect(body({ attributesToRetrieve: ['section', 'version'] }).attributesToRetrieve).toEqual(['section', 'version']);
    expect(body({ attributesToRetrieve: 'section' }).attributesToRetrieve).toEqual(['section']);
    expect(body({ attributesToRetrieve: [] }).attributesToRetrieve).toEqual([]);
    expect(body({})).not.toHaveProperty('attributesToRetrieve');
  });

  it('asks every facet for `*`, one service facet for all levels of a hierarchical menu, opened at its refined path', () => {
    expect(toSearchBody({ indexName: 'c', params: { facets: ['*'] } }, undefined).body).not.toHaveProperty('facets');
    const { body } = toSearchBody(
      { indexName: 'c', params: { hitsPerPage: 0, maxValuesPerFacet: 10 } },
      ['tags.lvl0', 'tags.lvl1', 'section', 'installedSize'],
      new Set(['installedSize']),
    );
    expect(body).toEqual(
      expect.objectContaining({
        facets: ['tags', 'section', 'installedSize'],
        facetLimit: 10,
        facetLimits: { installedSize: 0 },
        facetPaths: { tags: '' },
        rows: 1,
      }),
    );
    expect(toSearchBody({ indexName: 'c', params: {} }, undefined, new Set(['installedSize'])).body).toMatchObject({
      facetLimits: { installedSize: 0 },
    });
    const opened = (facetFilters: AlgoliaSearchParams['facetFilters']) =>
      toSearchBody({ indexName: 'c', params: { facetFilters } }, ['tags.lvl0', 'tags.lvl1', 'tags.lvl2', 'section']).body;
    // InstantSearch sends a hierarchical refinement as an OR group of one, the parent levels' queries the parents.
    expect(opened([['tags.lvl1:devel/library'], ['section:libs']])).toMatchObject({ facetPaths: { tags: 'devel/library' } });
    expect(opened(['tags.lvl0:devel', 'tags.lvl1:devel/library'])).toMatchObject({ facetPaths: { tags: 'devel/library' } });
    expect(opened([['section:libs']])).toMatchObject({ facetPaths: { tags: '' } });
    // Filters no one path describes: every value, as many as the menu could need.
    for (const filters of [[['tags.lvl0:devel', 'tags.lvl0:role']], ['tags.lvl0:-devel'], ['tags.lvl0:devel', 'tags.lvl0:role']]) {
      const body = opened(filters);
      expect(body.facetLimits).toEqual({ tags: 1000 });
      expect(body).not.toHaveProperty('facetPaths');
    }
  });
});

describe('filters', () => {
  it('turns OR groups, required and excluded values, hierarchical levels and numeric bounds into service filters', () => {
    expect(
      translateFilters(
        [['section:editors', 'section:web'], 'tags.lvl1:interface/x11', 'essential:true', 'attributes.priority:-optional'],
        ['installedSize>=100', 'installedSize<=5000'],
      ),
    ).toEqual({
      section: { filterType: 'term', filterOperator: 'or', values: ['editors', 'web'] },
      tags: { filterType: 'term', filterOperator: 'or', values: ['interface/x11'] },
      essential: { filterType: 'term', filterOperator: 'or', values: ['true'] },
      'attributes.priority': { filterType: 'term', filterOperator: 'not', values: ['optional'] },
      installedSize: { filterType: 'range', minValue: 100, maxValue: 5000 },
    });
    expect(translateFilters(['section:a', 'section:b', 'section:\\-c'], undefined)).toEqual({
      section: { filterType: 'term', filterOperator: 'and', values: ['a', 'b', '-c'] },
    });
    expect(translateFilters(undefined, ['size=5', 'rank!=3'])).toEqual({
      size: { filterType: 'range', minValue: 5, maxValue: 5 },
      rank: { filterType: 'range', filterOperator: 'not', minValue: 3, maxValue: 3 },
    });
    const strict = translateFilters(undefined, ['price>10', 'price<20']).price;
    expect(Number(strict.minValue)).toBeGreaterThan(10);
    expect(Number(strict.minValue)).toBeLessThan(10.000001);
    expect(Number(strict.maxValue)).toBeLessThan(20);
  });

  it('refuses what one service request cannot express', () => {
    expect(() => translateFilters([['a:1', 'b:2']], undefined)).toThrow(UnsupportedFilterError);
    expect(() => translateFilters(['a:1', 'a:-2'], undefined)).toThrow(UnsupportedFilterError);
    expect(() => translateFilters(['a:1'], ['a>=3'])).toThrow(UnsupportedFilterError);
    expect(() => translateFilters(undefined, [['a>=1', 'a<=0']])).toThrow(UnsupportedFilterError);
    expect(() => translateFilters(['nocolon'], undefined)).toThrow(UnsupportedFilterError);
  });
});

const answer: SearchResult = {
  total: 45,
  time: 3,
  documents: [
    {
      id: 'vim',
      position: 1,
      document: { name: 'vim', description: 'Vi IMproved <editor>', tags: ['a'] },
      highlight: { name: '<em>vim</em>', description: 'Vi IMproved &lt;editor&gt;', tags: ['<em>x</em> &amp; y'] },
      snippet: { description: '…IMproved &lt;<em>edi</em>tor&gt;' },
    },
  ],
  facets: [
    {
      id: 'section',
      name: 'section',
      values: [
        { value: 'editors', count: 40 },
        { value: 'web', count: 5 },
      ],
    },
    {
      id: 'tags',
      name: 'tags',
      values: [
        { value: 'interface', count: 30 },
        { value: 'interface/x11', count: 20 },
        { value: 'role', count: 10 },
      ],
    },
  ],
  facetStats: { installedSize: { min: 1, max: 9, avg: 4, sum: 180 } },
  paging: { page: 2, rows: 20, total: 45, totalPages: 3 },
};

describe('responses', () => {
  it('answers Algolia-shaped results: objectID, raw highlighted values with match levels, paging, facets and stats', () => {
    const result = toAlgoliaResult(
      {
        indexName: 'catalog',
        params: {
          query: 'vim edi',
          page: 1,
          hitsPerPage: 20,
          facets: ['section', 'tags.lvl0', 'tags.lvl1'],
          highlightPreTag: '<em>',
          highlightPostTag: '</em>',
        },
      },
      answer,
    );
    expect(result).toMatchObject({
      nbHits: 45,
      nbPages: 3,
      page: 1,
      hitsPerPage: 20,
      processingTimeMS: 3,
      query: 'vim edi',
      index: 'catalog',
    });
    expect(result.hits[0]).toEqual({
      objectID: 'vim',
      name: 'vim',
      description: 'Vi IMproved <editor>',
      tags: ['a'],
      _highlightResult: {
        name: { value: '<em>vim</em>', matchLevel: 'partial', matchedWords: ['vim'], fullyHighlighted: false },
        description: { value: 'Vi IMproved <editor>', matchLevel: 'none', matchedWords: [], fullyHighlighted: false },
        tags: [{ value: '<em>x</em> & y', matchLevel: 'partial', matchedWords: [], fullyHighlighted: false }],
      },
      _snippetResult: { description: { value: '…IMproved <<em>edi</em>tor>', matchLevel: 'partial' } },
    });
    expect(result.facets).toEqual({
      section: { editors: 40, web: 5 },
      'tags.lvl0': { interface: 30, role: 10 },
      'tags.lvl1': { 'interface/x11': 20 },
    });
    expect(result.facets_stats).toEqual({ installedSize: { min: 1, max: 9, avg: 4, sum: 180 } });
  });

  it('answers no hits for a facet-only query', () => {
    const result = toAlgoliaResult({ indexName: 'catalog', params: { hitsPerPage: 0, facets: 'section' } }, answer);
    expect(result).toMatchObject({ hits: [], nbHits: 45, nbPages: 0, facets: { section: { editors: 40, web: 5 } } });
  });
});

describe('searchClient', () => {
  function recordingTransport() {
    const calls: Array<{ app: string; body: SearchBody }> = [];
    const transport: SearchTransport = {
      async search(app, body) {
        calls.push({ app, body });
        return { result: answer };
      },
      async suggest() {
        return { suggestions: [] };
      },
    };
    return { calls, transport };
  }

  it('answers the extra disjunctive-facet queries from the hits query: one service call per index', async () => {
    const { calls, transport } = recordingTransport();
    const client = edgeSearchClient({ url: 'http://unused.test', tenant: 'demo', transport });
    const { results } = await client.search([
      {
        indexName: 'catalog',
        params: { query: 'vim', hitsPerPage: 20, page: 0, facets: ['section', 'tags.lvl0'], facetFilters: [['section:editors']] },
      },
      { indexName: 'catalog', params: { query: 'vim', hitsPerPage: 0, page: 0, analytics: false, facets: 'section' } },
      { indexName: 'catalog:name_asc', params: { query: 'vim', hitsPerPage: 5, facets: [] } },
    ]);
    expect(calls.map((c) => c.app)).toEqual(['catalog', 'catalog']);
    expect(calls[0].body).toMatchObject({ facets: ['section', 'tags'], filters: { section: { values: ['editors'] } } });
    expect(calls[1].body).toMatchObject({ sort: 'name_asc', rows: 5, facets: [] });
    expect(results).toHaveLength(3);
    expect(results[0].hits).toHaveLength(1);
    expect(results[1]).toMatchObject({ hits: [], facets: { section: { editors: 40, web: 5 } } });
    expect(results[2].index).toBe('catalog:name_asc');
  });
});
