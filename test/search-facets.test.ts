import { describe, expect, it } from 'vitest';
import { QueryError, SearchIndex } from '../src/search/engine/index';
import type { IndexConfig, SearchAppField, SearchRequest } from '../src/search/engine/types';

function field(code: string, dataType: SearchAppField['dataType'], extra: Partial<SearchAppField> = {}): SearchAppField {
  return {
    code,
    dataType,
    searchMode: dataType === 'string' ? 'balanced' : 'off',
    weight: 1,
    display: true,
    facet: true,
    sort: false,
    suggest: false,
    navigation: false,
    semantic: false,
    ...extra,
  };
}

const config: IndexConfig = {
  fields: [
    field('title', 'string', { facet: false }),
    field('brand', 'string', { searchMode: 'exact' }),
    field('price', 'double'),
    field('released', 'date'),
    field('specs', 'attributes'),
  ],
  sorts: [],
};
const index = new SearchIndex(config);
index.add('p1', { title: 'red shoe', brand: 'Acme', price: 50, released: '2024-01-01', specs: { color: 'red' } });
index.add('p2', { title: 'blue shoe', brand: 'Acme', price: 80, released: '2024-03-01', specs: { color: 'blue' } });
index.add('p3', { title: 'red boot', brand: 'Trail', price: 120, released: '2023-06-01' });
index.add('p4', { title: 'red sock', brand: 'Trail' });

const search = (request: Partial<SearchRequest>) => index.search({ page: 1, rows: 10, ...request });

describe('facet stats', () => {
  it('answers min, max, avg and sum of numeric facets over the matching documents, dates in epoch ms', () => {
    expect(search({ q: 'red' }).facetStats).toEqual({
      price: { min: 50, max: 120, avg: 85, sum: 170 },
      released: { min: Date.parse('2023-06-01'), max: Date.parse('2024-01-01'), avg: expect.any(Number), sum: expect.any(Number) },
    });
    expect(search({}).facetStats.price).toEqual({ min: 50, max: 120, avg: 250 / 3, sum: 250 });
    expect(search({ q: 'sock' }).facetStats).toEqual({});
  });

  it('leaves a facet its own range, as disjunctive facets leave their own terms, while hits and other facets respect it', () => {
    const ranged = search({ filters: { price: { filterType: 'range', minValue: 60 } } });
    expect(ranged.hits.map((hit) => hit.id)).toEqual(['p2', 'p3']);
    expect(ranged.facetStats.price).toEqual({ min: 50, max: 120, avg: 250 / 3, sum: 250 });
    expect(ranged.facets.find((f) => f.id === 'price')!.values.map((v) => v.value)).toEqual(['120', '50', '80']);
    expect(ranged.facets.find((f) => f.id === 'brand')!.values).toEqual([
      { value: 'Acme', count: 1 },
      { value: 'Trail', count: 1 },
    ]);
    const branded = search({ filters: { brand: { filterType: 'term', values: ['Trail'] } } });
    expect(branded.facetStats.price).toEqual({ min: 120, max: 120, avg: 120, sum: 120 });
    const excluded = search({ filters: { price: { filterType: 'range', filterOperator: 'not', minValue: 60 } } });
    expect(excluded.facetStats.price).toEqual({ min: 50, max: 50, avg: 50, sum: 50 });
  });

  it('counts each facet and stat over the documents passing every filter but its own, with two filters', () => {
    const both = search({
      filters: { brand: { filterType: 'term', values: ['Acme'] }, released: { filterType: 'range', minValue: '2024-02-01' } },
    });
    expect(both.hits.map((hit) => hit.id)).toEqual(['p2']);
    // No filter of its own: over the documents passing both.
    expect(both.facetStats.price).toEqual({ min: 80, max: 80, avg: 80, sum: 80 });
    expect(both.facets.find((f) => f.id === 'specs.color')!.values).toEqual([{ value: 'blue', count: 1 }]);
    // Each filtered facet over the documents passing the other filter.
    expect(both.facets.find((f) => f.id === 'brand')!.values).toEqual([{ value: 'Acme', count: 1 }]);
    expect(both.facetStats.released).toMatchObject({ min: Date.parse('2024-01-01'), max: Date.parse('2024-03-01') });
  });
});

describe('facet stats from facet counts', () => {
  const statsConfig: IndexConfig = {
    fields: [
      field('title', 'string', { facet: false }),
      field('colour', 'string', { searchMode: 'off' }),
      field('size', 'long'),
      field('weight', 'double'),
    ],
    sorts: [],
  };

  /** Stats of `code` over the documents whose title starts with `q`, summed document by document in feeding order. */
  function expectedStats(documents: Map<string, Record<string, unknown>>, q: string, code: string) {
    const values = [...documents.values()]
      .filter((document) => String(document.title).startsWith(q) && typeof document[code] === 'number')
      .map((document) => document[code] as number);
    if (!values.length) return undefined;
    const sum = values.reduce((a, b) => a + b, 0);
    return { min: Math.min(...values), max: Math.max(...values), avg: sum / values.length, sum };
  }

  it('answers what a pass over the documents answers, as documents that make counts unusable come between searches', () => {
    const index = new SearchIndex(statsConfig);
    const documents = new Map<string, Record<string, unknown>>();
    const add = (id: string, document: Record<string, unknown>) => {
      documents.set(id, document);
      index.add(id, document);
    };
    // Counted facets with every facet asked (stats from counts) and with one left out (stats document by document).
    const expectStats = () => {
      for (const q of ['common', 'plain']) {
        const together = index.search({ q, page: 1, rows: 5 }).facetStats;
        const apart = index.search({ q, page: 1, rows: 5, facetLimits: { colour: 0 } }).facetStats;
        for (const code of ['size', 'weight']) {
          expect(together[code]).toEqual(expectedStats(documents, q, code));
          expect(apart[code]).toEqual(together[code]);
        }
      }
    };
    for (let i = 0; i < 40; i++)
      add(`d${i}`, {
        title: `${i % 5 ? 'common' : 'plain'} item`,
        colour: ['red', 'blue'][i % 2],
        size: (i % 7) * 1000,
        weight: 0.1 * (i % 3),
      });
    expectStats();
    // An array is a facet's values but no number: its values must not count in the stats.
    add('array', { title: 'common item', colour: 'red', size: [5, 900_000], weight: 0.2 });
    expectStats();
    expect(index.search({ q: 'common', page: 1, rows: 5 }).facetStats.size?.max).toBe(6000);
    add('after', { title: 'common item', colour: 'blue', size: 123, weight: 0.3 });
    index.remove('d1');
    documents.delete('d1');
    expectStats();
  });

  it('sums integers too large to add up exactly in any order document by document', () => {
    const index = new SearchIndex(statsConfig);
    const sizes = [2 ** 53 - 1, 1, -(2 ** 52), 1];
    sizes.forEach((size, i) => index.add(`d${i}`, { title: 'common item', colour: 'red', size }));
    const stats = index.search({ q: 'common', page: 1, rows: 5 }).facetStats.size;
    expect(stats).toEqual(index.search({ q: 'common', page: 1, rows: 5, facetLimits: { colour: 0 } }).facetStats.size);
    expect(stats?.sum).toBe(sizes.reduce((a, b) => a + b, 0));
  });
});

describe('facet selection', () => {
  it('counts only the listed facets (none for an empty list), with or without a query', () => {
    expect(search({ facets: ['brand', 'specs.color'] }).facets.map((f) => f.id)).toEqual(['brand', 'specs.color']);
    expect(search({ q: 'red', facets: ['price'] })).toMatchObject({
      facets: [{ id: 'price' }],
      facetStats: { price: { min: 50, max: 120 } },
    });
    expect(search({ q: 'red', facets: [] })).toMatchObject({ facets: [], facetStats: {} });
    expect(search({ facets: ['brand'] }).facetStats).toEqual({});
    expect(search({}).facets.map((f) => f.id)).toEqual(['brand', 'price', 'released', 'specs.color']);
  });

  it('rejects an id that is no facet', () => {
    const thrown = (() => {
      try {
        search({ facets: ['brand', 'title', 'nope.x'] });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(QueryError);
    expect((thrown as QueryError).details).toEqual([
      { path: 'facets.1', message: "unknown facet 'title'" },
      { path: 'facets.2', message: "unknown facet 'nope.x'" },
    ]);
  });
});

describe('facet counts over large match sets and after changes', () => {
  const catalogue: IndexConfig = {
    fields: [field('title', 'string', { facet: false }), field('colour', 'string', { searchMode: 'off' }), field('kinds', 'categories')],
    sorts: [],
  };
  const colours = ['red', 'green', 'blue'];
  const documentOf = (i: number) => ({
    title: i % 5 === 0 ? `plain item ${i}` : `common item ${i}`,
    colour: colours[i % 3],
    kinds: i % 4 === 0 ? ['tools/hand', 'garden'] : [`tools/power/${i % 2}`],
  });

  /** Each facet's values counted the slow way over the payloads of the documents `matches` keeps. */
  function expectedFacets(documents: Map<string, ReturnType<typeof documentOf>>, matches: (title: string) => boolean) {
    const tallies = { colour: new Map<string, number>(), kinds: new Map<string, number>() };
    for (const document of documents.values()) {
      if (!matches(document.title)) continue;
      tallies.colour.set(document.colour, (tallies.colour.get(document.colour) ?? 0) + 1);
      const levels = new Set(document.kinds.flatMap((path) => path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
      for (const level of levels) tallies.kinds.set(level, (tallies.kinds.get(level) ?? 0) + 1);
    }
    return Object.entries(tallies).map(([id, tally]) => ({
      id,
      values: [...tally]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)),
    }));
  }

  /** The documents `index` holds, kept alike by `add` (a replaced document last, as in feeding order) and `remove`. */
  function besideDocuments(index: SearchIndex) {
    const documents = new Map<string, ReturnType<typeof documentOf>>();
    const add = (id: string, document: ReturnType<typeof documentOf>) => {
      documents.delete(id);
      documents.set(id, document);
      index.add(id, document);
    };
    const remove = (id: string) => {
      documents.delete(id);
      index.remove(id);
    };
    return { documents, add, remove };
  }

  /** `expectedFacets` of the documents `kept` keeps, but facet `own` (whose filter `kept` is) counted over every document. */
  function expectedNarrowed(
    documents: Map<string, ReturnType<typeof documentOf>>,
    own: string,
    kept: (d: ReturnType<typeof documentOf>) => boolean,
  ) {
    const titles = new Set([...documents.values()].filter(kept).map((d) => d.title));
    const everything = expectedFacets(documents, () => true);
    return expectedFacets(documents, (title) => titles.has(title)).map((facet) =>
      facet.id === own ? everything.find((other) => other.id === own)! : facet,
    );
  }

  /**
   * An index over `catalogue` beside the documents it holds: `expectCounts` compares the facets of `common` (most
   * documents) and `plain` (few) with those counted the slow way, cut at `facetLimit`.
   */
  function indexBesideDocuments(facetLimit?: number) {
    const index = new SearchIndex(catalogue);
    const documents = new Map<string, ReturnType<typeof documentOf>>();
    return {
      add(id: string, document: ReturnType<typeof documentOf>) {
        documents.set(id, document);
        index.add(id, document);
      },
      remove(id: string) {
        documents.delete(id);
        index.remove(id);
      },
      expectCounts() {
        for (const q of ['common', 'plain'])
          expect(index.search({ q, page: 1, rows: 5, facetLimit }).facets.map(({ id, values }) => ({ id, values }))).toEqual(
            expectedFacets(documents, (title) => title.startsWith(q)).map(({ id, values }) => ({
              id,
              values: values.slice(0, facetLimit),
            })),
          );
      },
    };
  }

  it('counts a query matching most documents, one matching few, and browsing alike, with removed and replaced documents', () => {
    const index = new SearchIndex(catalogue);
    const documents = new Map<string, ReturnType<typeof documentOf>>();
    for (let i = 0; i < 60; i++) {
      documents.set(`d${i}`, documentOf(i));
      index.add(`d${i}`, documentOf(i));
    }
    for (let i = 0; i < 60; i += 7) {
      documents.delete(`d${i}`);
      index.remove(`d${i}`);
    }
    // Replaced: a new ordinal with other values, its old values no longer counted.
    for (const i of [3, 11, 20]) {
      const replaced = { ...documentOf(i), title: `common item ${i}`, kinds: ['garden/pond', 'tools/hand'] };
      documents.set(`d${i}`, replaced);
      index.add(`d${i}`, replaced);
    }
    const facetsOf = (target: SearchIndex, q: string) =>
      target.search({ q, page: 1, rows: 5 }).facets.map(({ id, values }) => ({ id, values }));
    const copy = SearchIndex.load(catalogue, index.serialize());
    for (const target of [index, copy]) {
      expect(facetsOf(target, 'common')).toEqual(expectedFacets(documents, (title) => title.startsWith('common')));
      expect(facetsOf(target, 'plain')).toEqual(expectedFacets(documents, (title) => title.startsWith('plain')));
      expect(facetsOf(target, '')).toEqual(expectedFacets(documents, () => true));
    }
    // Cut at every limit: the values counted as often as the last one kept are ordered by value.
    for (const facetLimit of [1, 2, 3, 4]) {
      const cut = expectedFacets(documents, (title) => title.startsWith('common')).map(({ id, values }) => ({
        id,
        values: values.slice(0, facetLimit),
      }));
      expect(index.search({ q: 'common', page: 1, rows: 5, facetLimit }).facets.map(({ id, values }) => ({ id, values }))).toEqual(cut);
    }
    expect(index.search({ q: 'common', page: 1, rows: 5 }).total).toBe(
      [...documents.values()].filter((d) => d.title.startsWith('common')).length,
    );
  });

  it('picks the top values alike where a few values are counted often, some a few times and hundreds once, cut within ties', () => {
    // `colour`: 4 values on 100 documents each (counted beyond 63 by `common`), 10 on 5 each, 300 on one each.
    const colourOf = (i: number) => (i < 400 ? `c${Math.floor(i / 100)}` : i < 450 ? `d${i % 10}` : `u${i}`);
    for (const facetLimit of [1, 3, 5, 8, 12]) {
      const index = indexBesideDocuments(facetLimit);
      for (let i = 0; i < 750; i++) index.add(`d${i}`, { ...documentOf(i), colour: colourOf(i) });
      index.expectCounts();
    }
  });

  it('counts what the index holds at each search when documents, and values new to a facet, come and go between searches', () => {
    // `common` matches most documents (counted through the others), `plain` few.
    const { add, remove, expectCounts } = indexBesideDocuments();
    for (let i = 0; i < 30; i++) add(`d${i}`, documentOf(i));
    expectCounts();
    // A colour and a category no document had before: value ids the earlier counts had no room for.
    for (let i = 30; i < 40; i++) add(`d${i}`, { ...documentOf(i), colour: 'violet', kinds: ['toys/wooden'] });
    expectCounts();
    for (let i = 0; i < 40; i += 3) remove(`d${i}`);
    add('d3', { ...documentOf(3), colour: 'amber' });
    expectCounts();
  });

  it('counts values a facet gains after its first count, many more than it had', () => {
    const { add, expectCounts } = indexBesideDocuments(1000);
    for (let i = 0; i < 20; i++) add(`d${i}`, documentOf(i));
    expectCounts();
    // Three colours and a few categories at the first count; then a hundred more of each.
    for (let i = 20; i < 120; i++) add(`d${i}`, { ...documentOf(i), colour: `colour ${i}`, kinds: [`kind ${i % 50}/sub ${i}`] });
    expectCounts();
  });

  it('counts alike once the facets hold more values than rows of 16-bit entries have room for', () => {
    const { add, expectCounts } = indexBesideDocuments(300);
    for (let i = 0; i < 20; i++) add(`d${i}`, documentOf(i));
    expectCounts();
    // 40 colours more (the colours' region grows, so every category's place moves too), and 500 categories a document,
    // 50 of them shared (counted more than once) and 450 its own: 54,050 values, which with room to grow take more
    // than 65,536 places, so the rows counted before move to 32-bit entries.
    for (let i = 20; i < 140; i++) {
      const kinds = Array.from({ length: 500 }, (_, j) => (j < 50 ? `shared ${(i + j) % 50}` : `own ${i} ${j}`));
      add(`d${i}`, { ...documentOf(i), colour: `colour ${i % 40}`, kinds });
    }
    expectCounts();
  });

  it('counts alike once documents hold more sets of the small facets’ values than rows combine', () => {
    const { add, remove, expectCounts } = indexBesideDocuments(200);
    for (let i = 0; i < 20; i++) add(`d${i}`, documentOf(i));
    expectCounts();
    // 40 colours × 40 kinds: 1,600 sets of values, more than the 1,024 combinations rows hold as one entry each; the
    // documents past them hold their values as they are.
    for (let i = 20; i < 1620; i++)
      add(`d${i}`, { ...documentOf(i), colour: `colour ${i % 40}`, kinds: [`kind ${Math.floor(i / 40) % 40}`] });
    expectCounts();
    for (let i = 0; i < 1620; i += 9) remove(`d${i}`);
    expectCounts();
  });

  it('counts matches that are mostly one frequent word’s documents alike, as documents come and go before and after its counts are derived again', () => {
    // 1,300 documents hold `common` (its counts are kept from 256), 200 `plain`, the rest neither: `common plain`
    // matches fewer than half, so its counts start from `common`'s and add the rows of the `plain` documents.
    const index = new SearchIndex(catalogue);
    const { documents, add, remove } = besideDocuments(index);
    const titleOf = (i: number) => (i % 10 < 4 ? `common item ${i}` : i % 10 === 4 ? `plain item ${i}` : `other item ${i}`);
    const expectCounts = () => {
      for (const q of ['common plain', 'common', 'plain'])
        expect(index.search({ q, page: 1, rows: 5 }).facets.map(({ id, values }) => ({ id, values }))).toEqual(
          expectedFacets(documents, (title) => q.split(' ').some((word) => title.startsWith(word))),
        );
    };
    for (let i = 0; i < 3250; i++) add(`d${i}`, { ...documentOf(i), title: titleOf(i) });
    expectCounts();
    // Fewer changes than rebuild the counts: `common` documents removed (their rows taken off the kept counts),
    // replaced by documents with other values, and new ones, one with a colour no document had.
    for (let i = 0; i < 200; i += 10) remove(`d${i}`);
    for (let i = 1; i < 100; i += 10) add(`d${i}`, { title: `common item ${i}`, colour: 'amber', kinds: ['garden/pond'] });
    add('new common', { title: 'common item new', colour: 'violet', kinds: ['toys/wooden'] });
    expectCounts();
    // Enough changes to derive them again, then changes since.
    for (let i = 200; i < 1000; i += 2) remove(`d${i}`);
    expectCounts();
    for (let i = 1000; i < 1100; i += 10) remove(`d${i}`);
    expectCounts();
    // The term's documents are marked with a stamp per query, which starts again after 255 queries.
    for (let i = 0; i < 300; i++) index.search({ q: 'common plain', page: 1, rows: 5 });
    expectCounts();
  });

  it('answers browsing (no query, no filter) for the index as it is now: every change shows in hits, totals and counts', () => {
    const index = new SearchIndex(catalogue);
    for (let i = 0; i < 6; i++) index.add(`d${i}`, documentOf(i));
    const browse = (filters?: SearchRequest['filters']) => index.search({ page: 1, rows: 10, filters });
    const colourCounts = () => browse().facets.find((facet) => facet.id === 'colour')?.values;
    expect(browse().total).toBe(6);
    expect(colourCounts()).toEqual([
      { value: 'blue', count: 2 },
      { value: 'green', count: 2 },
      { value: 'red', count: 2 },
    ]);
    index.add('extra', { title: 'extra item', colour: 'red', kinds: ['garden'] });
    expect(browse().total).toBe(7);
    expect(browse().hits.at(-1)?.id).toBe('extra');
    expect(colourCounts()?.[0]).toEqual({ value: 'red', count: 3 });
    index.remove('d1');
    index.remove('d4');
    expect(browse().hits.map((hit) => hit.id)).toEqual(['d0', 'd2', 'd3', 'd5', 'extra']);
    expect(colourCounts()).toEqual([
      { value: 'red', count: 3 },
      { value: 'blue', count: 2 },
    ]);
    const red = browse({ colour: { filterType: 'term', values: ['red'] } });
    expect(red.hits.map((hit) => hit.id)).toEqual(['d0', 'd3', 'extra']);
    // The filtered facet leaves out its own filter: every colour still counted.
    expect(red.facets.find((facet) => facet.id === 'colour')?.values.map((value) => value.count)).toEqual([3, 2]);
    expect(red.facets.find((facet) => facet.id === 'kinds')?.values).toEqual([
      { value: 'garden', count: 2 },
      { value: 'tools', count: 2 },
      { value: 'tools/hand', count: 1 },
      { value: 'tools/power', count: 1 },
      { value: 'tools/power/1', count: 1 },
    ]);
  });

  it('answers browsing narrowed by one filter of several values as the documents say, each document once, as documents come and go', () => {
    const index = new SearchIndex(catalogue);
    const { documents, add, remove } = besideDocuments(index);
    const levelsOf = (kinds: string[]) => kinds.flatMap((path) => path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/')));
    const filters = [
      { id: 'kinds' as const, values: ['tools/power', 'garden'], accepts: (d: ReturnType<typeof documentOf>) => levelsOf(d.kinds) },
      { id: 'colour' as const, values: ['red', 'violet', 'blue'], accepts: (d: ReturnType<typeof documentOf>) => [d.colour] },
    ];
    const expectBrowsing = () => {
      for (const { id, values, accepts } of filters) {
        const kept = (d: ReturnType<typeof documentOf>) => accepts(d).some((value) => values.includes(value));
        const answer = index.search({ page: 1, rows: 100, filters: { [id]: { filterType: id === 'kinds' ? 'tree' : 'term', values } } });
        // In feeding order (a replaced document last), the filter's own facet counted over every document.
        expect(answer.hits.map((hit) => hit.id)).toEqual([...documents].filter(([, d]) => kept(d)).map(([key]) => key));
        expect(answer.total).toBe(answer.hits.length);
        expect(answer.facets.map((facet) => ({ id: facet.id, values: facet.values }))).toEqual(expectedNarrowed(documents, id, kept));
      }
    };
    for (let i = 0; i < 40; i++) add(`d${i}`, documentOf(i));
    expectBrowsing();
    // Documents holding both of the filter's categories (listed under each), removed ones and a colour new to the index.
    for (const i of [2, 9, 13]) add(`d${i}`, { ...documentOf(i), kinds: ['garden/pond', 'tools/power/1'] });
    for (let i = 0; i < 40; i += 6) remove(`d${i}`);
    add('d40', { ...documentOf(40), colour: 'violet' });
    expectBrowsing();
  });

  it('counts browsing narrowed to a frequent value of a navigation facet alike, from its kept counts, as documents come and go before and after they are derived again', () => {
    // `colour` is a navigation facet whose three values each hold more than 1,024 of the 4,000 documents throughout.
    const navigated: IndexConfig = {
      ...catalogue,
      fields: catalogue.fields.map((f) => (f.code === 'colour' ? { ...f, navigation: true } : f)),
    };
    const index = new SearchIndex(navigated);
    const { documents, add, remove } = besideDocuments(index);
    const expectCounts = () => {
      for (const colour of ['red', 'green']) {
        const answer = index.search({ page: 2, rows: 5, filters: { colour: { filterType: 'term', values: [colour] } } });
        const kept = [...documents].filter(([, d]) => d.colour === colour);
        expect(answer.total).toBe(kept.length);
        expect(answer.hits.map((hit) => hit.id)).toEqual(kept.slice(5, 10).map(([id]) => id));
        expect(answer.facets.map((facet) => ({ id: facet.id, values: facet.values }))).toEqual(
          expectedNarrowed(documents, 'colour', (d) => d.colour === colour),
        );
      }
    };
    for (let i = 0; i < 4000; i++) add(`d${i}`, documentOf(i));
    expectCounts();
    // Fewer changes than derive the counts again: red documents removed (their rows taken off the kept counts), red
    // documents replaced with other categories, new ones, one with a category no document had.
    for (let i = 0; i < 300; i += 15) remove(`d${i}`);
    for (let i = 3; i < 300; i += 30) add(`d${i}`, { ...documentOf(i), kinds: ['garden/pond'] });
    add('new red', { title: 'plain item new', colour: 'red', kinds: ['toys/wooden'] });
    expectCounts();
    // Enough changes to derive them again, then removals only (no document added since the counts), then an addition.
    for (let i = 300; i < 600; i++) remove(`d${i}`);
    expectCounts();
    for (let i = 1100; i < 1200; i += 4) remove(`d${i}`);
    expectCounts();
    add('newer red', { title: 'plain item newer', colour: 'red', kinds: ['garden'] });
    expectCounts();
  });
});

describe('facetPaths: a categories facet as a hierarchical menu opened at a path shows it', () => {
  const catalogue: IndexConfig = {
    fields: [field('title', 'string', { facet: false }), field('colour', 'string', { searchMode: 'off' }), field('kinds', 'categories')],
    sorts: [],
  };
  const kinds = ['tools/hand/saw', 'tools/hand/file', 'tools/power/drill', 'tools/power', 'garden/pond', 'garden/seeds', 'home'];
  const index = new SearchIndex(catalogue);
  for (let i = 0; i < 40; i++)
    index.add(`d${i}`, {
      title: i % 4 === 0 ? `rare item ${i}` : `common item ${i}`,
      colour: i % 2 ? 'red' : 'blue',
      kinds: [kinds[i % kinds.length], kinds[(i * 3) % kinds.length]],
    });

  /** The values of `kinds` the slow way: every value counted, children of the opened categories, `limit` per level by count. */
  function expected(request: Partial<SearchRequest>, opened: string[], limit: number) {
    const all = search({ ...request, facetLimit: 1000 }).facets.find((facet) => facet.id === 'kinds')!.values;
    const parentOf = (value: string) => value.split('/').slice(0, -1).join('/');
    return opened.flatMap((category) => all.filter((v) => parentOf(v.value) === category).slice(0, limit));
  }
  const search = (request: Partial<SearchRequest>) => index.search({ page: 1, rows: 5, ...request });
  const kindsOf = (request: Partial<SearchRequest>) => search(request).facets.find((facet) => facet.id === 'kinds')!.values;

  it.each([
    ['browsing', {}],
    ['a query matching most documents', { q: 'common' }],
    ['a query matching few', { q: 'rare' }],
    ['a filter on another facet', { filters: { colour: { filterType: 'term' as const, values: ['red'] } } }],
    [
      'a filter on the facet itself (left out of its counts)',
      { filters: { kinds: { filterType: 'term' as const, values: ['tools/hand'] } } },
    ],
  ])('answers the top level and the children along the path, the limit per level: %s', (_, request) => {
    expect(kindsOf({ ...request, facetPaths: { kinds: '' } })).toEqual(expected(request, [''], 50));
    expect(kindsOf({ ...request, facetPaths: { kinds: 'tools' } })).toEqual(expected(request, ['', 'tools'], 50));
    expect(kindsOf({ ...request, facetPaths: { kinds: ' tools / hand ' }, facetLimit: 1 })).toEqual(
      expected(request, ['', 'tools', 'tools/hand'], 1),
    );
    expect(kindsOf({ ...request, facetPaths: { kinds: 'tools/power' }, facetLimits: { kinds: 2 } })).toEqual(
      expected(request, ['', 'tools', 'tools/power'], 2),
    );
  });

  it('answers the top level and nothing else under a path no document has, and other facets as before', () => {
    expect(kindsOf({ facetPaths: { kinds: 'nowhere/else' } })).toEqual(expected({}, [''], 50));
    expect(kindsOf({ facetPaths: { kinds: 'tools' } }).map((v) => v.value)).toEqual([
      'tools',
      'garden',
      'home',
      'tools/power',
      'tools/hand',
    ]);
    const colours = (request: Partial<SearchRequest>) => search(request).facets.find((facet) => facet.id === 'colour');
    expect(colours({ q: 'common', facetPaths: { kinds: 'tools' } })).toEqual(colours({ q: 'common' }));
  });

  it('throws QueryError for an id that is no categories facet', () => {
    let thrown: unknown;
    try {
      search({ facetPaths: { colour: '', nope: 'a' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(QueryError);
    expect((thrown as QueryError).details).toEqual([
      { path: 'facetPaths.colour', message: "'colour' is not a categories facet" },
      { path: 'facetPaths.nope', message: "unknown facet 'nope'" },
    ]);
  });
});

describe('facets of nearly unique columns: one value a document, about as many values as documents', () => {
  const uniqueConfig: IndexConfig = {
    fields: [
      field('title', 'string', { facet: false }),
      field('colour', 'string', { searchMode: 'off' }),
      field('source', 'string', { searchMode: 'off' }),
      field('size', 'long'),
    ],
    sorts: [],
  };
  const colours = ['red', 'green', 'blue'];
  type Document = { title: string; colour: string; source?: string | string[]; size?: number };
  // `source`: a tenth of the documents share 7 values, the rest hold their own; `size`: a tenth share 5, some none.
  const documentOf = (i: number): Document => ({
    title: i % 4 === 0 ? `plain item ${i}` : `common item ${i}`,
    colour: colours[i % 3],
    ...(i % 50 === 7 ? {} : { source: i % 10 === 0 ? `shared ${i % 7}` : `src ${i}` }),
    ...(i % 40 === 9 ? {} : { size: i % 10 === 1 ? 1000 + (i % 5) : 5000 + i }),
  });

  /** Each facet's values and the size stats counted the slow way over the documents `matches` keeps (and `passes`, for the facets but colour). */
  function expected(documents: Map<string, Document>, matches: (d: Document) => boolean, passes: (d: Document) => boolean, limit: number) {
    const tallies = { colour: new Map<string, number>(), size: new Map<string, number>(), source: new Map<string, number>() };
    const sizes: number[] = [];
    for (const document of documents.values()) {
      if (!matches(document)) continue;
      const add = (id: keyof typeof tallies, value: string) => tallies[id].set(value, (tallies[id].get(value) ?? 0) + 1);
      add('colour', document.colour);
      if (!passes(document)) continue;
      for (const source of [document.source ?? []].flat()) add('source', source);
      if (document.size !== undefined) {
        add('size', String(document.size));
        sizes.push(document.size);
      }
    }
    const facets = Object.entries(tallies).map(([id, tally]) => ({
      id,
      values: [...tally]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .slice(0, limit),
    }));
    const sum = sizes.reduce((a, b) => a + b, 0);
    const stats = sizes.length ? { min: Math.min(...sizes), max: Math.max(...sizes), avg: sum / sizes.length, sum } : undefined;
    return { facets, stats };
  }

  function indexBesideDocuments() {
    const index = new SearchIndex(uniqueConfig);
    const documents = new Map<string, Document>();
    const answer = (target: SearchIndex, request: Partial<SearchRequest>) => {
      const found = target.search({ page: 1, rows: 5, ...request });
      return { facets: found.facets.map(({ id, values }) => ({ id, values })), stats: found.facetStats.size };
    };
    return {
      index,
      documents,
      add(id: string, document: Document) {
        documents.set(id, document);
        index.add(id, document);
      },
      remove(id: string) {
        documents.delete(id);
        index.remove(id);
      },
      /**
       * `common` (most documents: counted through the others), `plain` (a quarter) and `item` (every one), with every
       * facet counted together (rows), with colour left out (facet by facet) and with a colour filter, at each limit.
       */
      expectCounts(target: SearchIndex = index) {
        for (const q of ['common', 'plain', 'item'])
          for (const facetLimit of [1, 3, 8, 60, 5000]) {
            const matches = (d: Document) => d.title.includes(q);
            const all = expected(documents, matches, () => true, facetLimit);
            expect(answer(target, { q, facetLimit })).toEqual(all);
            const apart = answer(target, { q, facetLimit, facetLimits: { colour: 0 } });
            expect(apart).toEqual({
              ...all,
              facets: all.facets.map((facet) => (facet.id === 'colour' ? { ...facet, values: [] } : facet)),
            });
            const red = answer(target, { q, facetLimit, filters: { colour: { filterType: 'term', values: ['red'] } } });
            expect(red).toEqual(expected(documents, matches, (d) => d.colour === 'red', facetLimit));
          }
      },
    };
  }

  it('counts them as facet by facet and as the documents say, with ties cut at every limit, complements and filters', () => {
    const { add, expectCounts, index } = indexBesideDocuments();
    for (let i = 0; i < 1500; i++) add(`d${i}`, documentOf(i));
    expectCounts();
    expectCounts(SearchIndex.load(uniqueConfig, index.serialize()));
  });

  it('counts them as the index changes: new values between searches, removals, and a document holding two sources', () => {
    const { add, remove, expectCounts } = indexBesideDocuments();
    for (let i = 0; i < 1500; i++) add(`d${i}`, documentOf(i));
    expectCounts();
    // Values new to both columns, some before every value there is in string order: every rank moves.
    for (let i = 1500; i < 1600; i++) add(`d${i}`, { ...documentOf(i), source: `a ${i % 30}`, size: 7 + (i % 3) });
    for (let i = 0; i < 1600; i += 9) remove(`d${i}`);
    expectCounts();
    // Two sources on one document: counted as any column with several values a document.
    add('two', { title: 'common item two', colour: 'red', source: ['a 1', 'zz'], size: 5 });
    expectCounts();
  });
});
