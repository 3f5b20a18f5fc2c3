import { describe, expect, it } from 'vitest';
import sampleText from './fixtures/debian-sample.ndjson?raw';
import schema from './fixtures/debian-packages.schema.json';
import { QueryError, SearchIndex, displayFields, editDistance, tokenize } from '../src/search/engine/index';
import type { IndexConfig, SearchRequest } from '../src/search/engine/types';
import { searchAppSchemaInput } from '../src/search/field-schema';
import { shopProducts } from './fixtures/shop';
import { field } from './fixtures/field';

const debianConfig: IndexConfig = {
  fields: searchAppSchemaInput.parse(schema).fields,
  sorts: [{ id: 'biggest', field: 'installedSize', direction: 'desc' }],
};
const sample = sampleText
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as { header: { id: string }; payload: Record<string, unknown> });

function debianIndex(): SearchIndex {
  const index = new SearchIndex(debianConfig);
  for (const { header, payload } of sample) index.add(header.id, payload);
  return index;
}
const debian = debianIndex();

const ids = (index: SearchIndex, request: Partial<SearchRequest>) =>
  index.search({ page: 1, rows: 10, ...request }).hits.map((hit) => hit.id);

const shopConfig: IndexConfig = {
  fields: [
    field('title', 'string', { searchMode: 'balanced', weight: 5, suggest: true, sort: true }),
    field('brand', 'string', { searchMode: 'exact', facet: true }),
    field('notes', 'string', { searchMode: 'fuzzy' }),
    field('price', 'double', { searchMode: 'exact', facet: true, sort: true }),
    field('released', 'date', { searchMode: 'off', facet: true, sort: true }),
    field('inStock', 'boolean', { searchMode: 'off', facet: true }),
    field('tags', 'categories', { searchMode: 'off', facet: true }),
    field('specs', 'attributes', { searchMode: 'off', facet: true }),
    field('secret', 'string', { searchMode: 'off', display: false }),
  ],
  sorts: [{ id: 'cheapest', field: 'price', direction: 'asc' }],
};
function shopIndex(): SearchIndex {
  const index = new SearchIndex(shopConfig);
  for (const { id, ...payload } of shopProducts) index.add(id, payload);
  return index;
}
const facet = (index: SearchIndex, request: Partial<SearchRequest>, id: string) =>
  index.search({ page: 1, rows: 10, ...request }).facets.find((f) => f.id === id)?.values;

describe('search modes', () => {
  const shop = shopIndex();
  it('balanced: whole terms and a prefix on the last term only', () => {
    // `p2` is filed under two categories, `p1` under one: its prior decides their tie (families.ts).
    expect(ids(shop, { q: 'running sh' })).toEqual(['p2', 'p1', 'p4']);
    expect(ids(shop, { q: 'runn' })).toEqual(expect.arrayContaining(['p1', 'p2', 'p4']));
    expect(ids(shop, { q: 'runn shoe' })).not.toContain('p4');
    expect(ids(shop, { q: 'runnign' })).toEqual([]);
  });
  it('fuzzy: one typo for 4+ characters, and prefixes', () => {
    expect(ids(shop, { q: 'waterprof' })).toEqual(['p2', 'p3']);
    expect(ids(shop, { q: 'leath' })).toEqual(['p3']);
    expect(ids(shop, { q: 'coton' })).toEqual(['p4']);
  });
  it('exact: the query phrase contiguous in the value, or scalar equality', () => {
    expect(ids(shop, { q: 'acme sports' }).sort()).toEqual(['p1', 'p4']);
    expect(ids(shop, { q: 'trail' })).toEqual(['p3']);
    expect(ids(shop, { q: 'sports acme' })).toEqual([]);
    expect(ids(shop, { q: '80' })).toEqual(['p2']);
  });
  it('exact: a field that also suggests is still matched as a whole phrase only', () => {
    const index = new SearchIndex({ fields: [field('brand', 'string', { searchMode: 'exact', suggest: true })], sorts: [] });
    index.add('a', { brand: 'Acme Sports' });
    index.add('b', { brand: 'Sports Direct' });
    expect(ids(index, { q: 'acme sports' })).toEqual(['a']);
    expect(ids(index, { q: 'sports acme' })).toEqual([]);
    expect(index.suggest({ q: 'spo', rows: 5 })).toEqual([{ value: 'sports', count: 2 }]);
  });
  it('exact: every value holding the phrase matches, each document once, as of the latest change', () => {
    const index = new SearchIndex({ fields: [field('brand', 'string', { searchMode: 'exact' })], sorts: [] });
    index.add('a', { brand: ['Acme Sports', 'Sports Direct'] });
    index.add('b', { brand: 'Acme' });
    index.add('c', { brand: 'Sports Direct' });
    expect(index.search({ q: 'sports', page: 1, rows: 10 }).total).toBe(2);
    expect(ids(index, { q: 'sports' }).sort()).toEqual(['a', 'c']);
    index.remove('a');
    expect(ids(index, { q: 'sports' })).toEqual(['c']);
    index.add('d', { brand: 'Acme Sports' });
    expect(ids(index, { q: 'sports' }).sort()).toEqual(['c', 'd']);
  });
  it('custom: searched as balanced', () => {
    const index = new SearchIndex({ fields: [field('title', 'string', { searchMode: 'custom' })], sorts: [] });
    index.add('a', { title: 'Wireless keyboard' });
    expect(ids(index, { q: 'wireless key' })).toEqual(['a']);
    expect(ids(index, { q: 'wireles' })).toEqual(['a']);
    expect(ids(index, { q: 'wirelss' })).toEqual([]);
  });
  it('fuzzy: two typos from 8 characters on', () => {
    expect(ids(shop, { q: 'waterpruuf' })).toEqual(['p2', 'p3']);
    expect(ids(shop, { q: 'lether' })).toEqual(['p3']);
    // Five letters allow one typo; `lethr` is two from `leather`, so only the fallback (one more typo) finds it.
    expect(ids(shop, { q: 'lethr' })).toEqual(['p3']);
    expect(ids(shop, { q: 'qqqqq' })).toEqual([]);
  });
  it('off: the field is not searched', () => {
    expect(ids(shop, { q: 'zebra' })).toEqual([]);
    expect(ids(shop, { q: 'hiking' })).toEqual(['p3']);
  });
  it('ranks documents matching all terms above partial matches, ties by id', () => {
    expect(ids(shop, { q: 'red shoe' })).toEqual(['p1', 'p2', 'p3']);
    expect(ids(shop, { q: 'running' }).sort()).toEqual(['p1', 'p2', 'p4']);
  });
});

describe('filters and facets', () => {
  const shop = shopIndex();
  it('term filters with or, and, not', () => {
    expect(ids(shop, { filters: { brand: { filterType: 'term', values: ['Acme', 'Trail Co'] } } })).toEqual(['p2', 'p3']);
    expect(ids(shop, { filters: { tags: { filterType: 'term', filterOperator: 'and', values: ['shoes/running', 'sale'] } } })).toEqual([
      'p2',
    ]);
    expect(ids(shop, { filters: { brand: { filterType: 'term', filterOperator: 'not', values: ['Acme Sports'] } } })).toEqual(['p2', 'p3']);
    expect(ids(shop, { filters: { inStock: { filterType: 'term', values: ['false'] } } })).toEqual(['p2']);
  });
  it('range and slider filters on numbers and dates, inclusive, either bound optional', () => {
    expect(ids(shop, { filters: { price: { filterType: 'range', filterDataType: 'number', minValue: 50, maxValue: 120 } } })).toEqual([
      'p1',
      'p2',
      'p3',
    ]);
    expect(ids(shop, { filters: { price: { filterType: 'slider', maxValue: 50 } } })).toEqual(['p1', 'p4']);
    expect(ids(shop, { filters: { price: { filterType: 'range', minValue: '81' } } })).toEqual(['p3']);
    expect(ids(shop, { filters: { released: { filterType: 'range', filterDataType: 'date', minValue: '2024-01-01' } } })).toEqual([
      'p1',
      'p2',
    ]);
    expect(ids(shop, { filters: { price: { filterType: 'range', filterOperator: 'not', maxValue: 50 } } })).toEqual(['p2', 'p3']);
  });
  it('tree filters match a category and its descendants; categories facet every level', () => {
    expect(ids(shop, { filters: { tags: { filterType: 'tree', values: ['shoes'] } } })).toEqual(['p1', 'p2', 'p3']);
    expect(facet(shop, {}, 'tags')).toEqual([
      { value: 'shoes', count: 3 },
      { value: 'shoes/running', count: 2 },
      { value: 'sale', count: 1 },
      { value: 'shoes/hiking', count: 1 },
      { value: 'socks', count: 1 },
    ]);
  });
  it('attributes give one facet per key, filterable by <code>.<key>', () => {
    expect(facet(shop, {}, 'specs.color')).toEqual([
      { value: 'red', count: 2 },
      { value: 'blue', count: 1 },
      { value: 'white', count: 1 },
    ]);
    expect(ids(shop, { filters: { 'specs.size': { filterType: 'term', values: ['42'] } } })).toEqual(['p1', 'p2']);
  });
  it('counts an or-filtered facet without its own filter, other filters applied', () => {
    const request = {
      filters: { brand: { filterType: 'term' as const, values: ['Acme'] }, inStock: { filterType: 'term' as const, values: ['true'] } },
    };
    expect(shop.search({ page: 1, rows: 10, ...request }).total).toBe(0);
    expect(facet(shop, request, 'brand')).toEqual([
      { value: 'Acme Sports', count: 2 },
      { value: 'Trail Co', count: 1 },
    ]);
    expect(facet(shop, request, 'inStock')).toEqual([{ value: 'false', count: 1 }]);
    const and = { filters: { brand: { filterType: 'term' as const, filterOperator: 'and' as const, values: ['Acme'] } } };
    expect(facet(shop, and, 'brand')).toEqual([{ value: 'Acme', count: 1 }]);
  });
  it('limits facet values to facetLimit, sorted by count then value', () => {
    expect(facet(shop, { facetLimit: 2 }, 'specs.color')).toEqual([
      { value: 'red', count: 2 },
      { value: 'blue', count: 1 },
    ]);
  });
  it('rejects unknown facets and values that do not fit their type', () => {
    const problems = (request: Partial<SearchRequest>) => {
      try {
        shop.search({ page: 1, rows: 10, ...request });
      } catch (error) {
        expect(error).toBeInstanceOf(QueryError);
        return (error as QueryError).details.map((d) => d.path);
      }
      return [];
    };
    expect(problems({ filters: { colour: { filterType: 'term', values: ['x'] } } })).toEqual(['filters.colour']);
    expect(problems({ filters: { price: { filterType: 'range', minValue: 'cheap' } } })).toEqual(['filters.price.minValue']);
    expect(problems({ filters: { released: { filterType: 'range', maxValue: 'yesterday' } } })).toEqual(['filters.released.maxValue']);
    expect(problems({ filters: { inStock: { filterType: 'term', values: ['maybe'] } } })).toEqual(['filters.inStock.values.0']);
    expect(problems({ filters: { brand: { filterType: 'range', minValue: 1 } } })).toEqual(['filters.brand.filterType']);
    expect(problems({ sort: 'colour_asc' })).toEqual(['sort']);
  });
});

describe('sorts and paging', () => {
  const shop = shopIndex();
  it('sorts by <code>_asc, <code>_desc and named sorts; empty q browses every document', () => {
    expect(ids(shop, { sort: 'price_asc' })).toEqual(['p4', 'p1', 'p2', 'p3']);
    expect(ids(shop, { sort: 'price_desc' })).toEqual(['p3', 'p2', 'p1', 'p4']);
    expect(ids(shop, { sort: 'released_desc' })).toEqual(['p2', 'p1', 'p3', 'p4']);
    expect(ids(shop, { sort: 'title_asc' })).toEqual(['p2', 'p3', 'p1', 'p4']);
    expect(ids(shop, { sort: 'cheapest', q: 'running' })).toEqual(['p4', 'p1', 'p2']);
    expect(ids(shop, {})).toEqual(['p1', 'p2', 'p3', 'p4']);
  });
  it('pages with 1-based positions; the last page is partial, beyond the end is empty with the total', () => {
    const second = shop.search({ page: 2, rows: 3, sort: 'price_asc' });
    expect(second).toMatchObject({ total: 4, hits: [{ id: 'p3', position: 4 }] });
    expect(shop.search({ page: 3, rows: 3 })).toMatchObject({ total: 4, hits: [] });
  });
});

describe('matching details only the documents ranking reaches', () => {
  // A filter every document passes: the query is matched as filtered, its details recorded for what the page can reach.
  const everything = { section: { filterType: 'term' as const, values: ['no-such-section'], filterOperator: 'not' as const } };
  const part = { feedingKey: (id: string) => id.length };
  const answer = (index: SearchIndex, request: Partial<SearchRequest>) => {
    const { total, hits, merge } = index.search({ page: 1, rows: 10, ...request }, undefined, part);
    return { total, hits, merge };
  };
  // Postings in two runs per term: the loaded ones, then those of documents added after the load.
  const grown = SearchIndex.load(debianConfig, debianIndex().serialize());
  for (const { header, payload } of sample.slice(0, 400)) grown.add(`${header.id}-again`, payload);
  it('answers as matching every document at once: pages past the first, sorts, totals and merge keys', () => {
    for (const index of [debian, grown])
      // `perlmodule` and `commandline` split into phrases, `gui editor` has a phrase synonym (`graphical user interface`).
      for (const q of ['python', 'library', 'pythn', 'python library', 'perl modul', 'perlmodule', 'commandline', 'gui editor'])
        for (const page of [1, 2, 9])
          for (const sort of [undefined, 'biggest']) {
            const plain = answer(index, { q, page, sort });
            expect(plain.total).toBeGreaterThan(10);
            expect(answer(index, { q, page, sort, filters: everything })).toEqual(plain);
          }
  });
  it('details the few documents passing a filter as when it details every one', () => {
    const section = new Map(sample.flatMap(({ header, payload }) => [header.id, `${header.id}-again`].map((id) => [id, payload.section])));
    const perl = { section: { filterType: 'term' as const, values: ['perl'] } };
    for (const index of [debian, grown])
      for (const q of ['library', 'module', 'documentation', 'data', 'perl']) {
        const all = index.search({ q, page: 1, rows: 10_000 }, undefined, part);
        const inPerl = all.hits.flatMap((hit, i) => (section.get(hit.id) === 'perl' ? [{ id: hit.id, key: all.merge?.keys[i] }] : []));
        const filtered = index.search({ q, page: 1, rows: 10, filters: perl }, undefined, part);
        expect(inPerl.length).toBeGreaterThan(0);
        expect(filtered.hits.map((hit, i) => ({ id: hit.id, key: filtered.merge?.keys[i] }))).toEqual(inPerl.slice(0, 10));
      }
  });
  it('ranks a one-word query by its bounds as by ranking every match: each page is its place in the whole ranking', () => {
    // Rows past 64 rank every match; a page of fewer details only the matches whose bounds reach it.
    for (const index of [debian, grown])
      for (const q of ['python', 'library', 'lib', 'pythn', 'documentation', 'data', 'perl', 'tool']) {
        const all = answer(index, { q, rows: 10_000 });
        expect(all.total).toBeGreaterThan(40);
        for (const page of [1, 2, 5]) {
          const { hits, merge } = answer(index, { q, page });
          expect(hits.map((hit, i) => [hit.id, merge?.keys[i]])).toEqual(
            all.hits.slice((page - 1) * 10, page * 10).map((hit, i) => [hit.id, all.merge?.keys[(page - 1) * 10 + i]]),
          );
        }
      }
  });
  it('ranks by bounds alike when the matches reach the page through hundreds of different fields and ways', () => {
    // 12 fields, the word first in a different set of them per document, alone or before another word, typed or
    // completed: hundreds of distinct bounds of criteria 2-4, more than ranking keeps one by one.
    const fields = Array.from({ length: 12 }, (_, i) => field(`f${i}`, 'string', { weight: 1 + (i % 5) }));
    const index = new SearchIndex({ fields, sorts: [] });
    for (let d = 0; d < 1500; d++) {
      const spread = (d * 2654435761) >>> 0;
      const payload: Record<string, string> = {};
      fields.forEach(({ code }, i) => {
        const way = (spread >>> (2 * i)) & 3;
        payload[code] = ['alpha', 'alpha beta', `gamma alpha${i}`, 'alphabet soup'][way] + ` d${d % 7}`;
      });
      index.add(`d${d}`, payload);
    }
    for (const q of ['alpha', 'alph']) {
      const all = answer(index, { q, rows: 10_000 });
      expect(all.total).toBeGreaterThan(1000);
      for (const page of [1, 2, 7]) {
        const { hits, merge } = answer(index, { q, page });
        expect(hits.map((hit, i) => [hit.id, merge?.keys[i]])).toEqual(
          all.hits.slice((page - 1) * 10, page * 10).map((hit, i) => [hit.id, all.merge?.keys[(page - 1) * 10 + i]]),
        );
      }
    }
  });
  it('leaves nothing behind for the next query', () => {
    const fresh = debianIndex();
    answer(debian, { q: 'python library' });
    answer(debian, { q: 'gui editor', filters: everything });
    answer(debian, { q: 'documentation', page: 4, filters: everything });
    answer(debian, { q: 'python', sort: 'biggest', filters: everything });
    for (const q of ['python', 'library', 'perl module', 'documentation']) expect(answer(debian, { q })).toEqual(answer(fresh, { q }));
  });
  it('marks a split word only where its parts stand next to each other, in live documents', () => {
    // `perlmodule` is no word of the index: its split `perl module` matches as a phrase, which marking reads by position.
    const fields = [
      field('title', 'string', { weight: 5 }),
      field('notes', 'string'),
      field('kind', 'string', { searchMode: 'off', facet: true }),
    ];
    const index = new SearchIndex({ fields, sorts: [] });
    const anyKind = { kind: { filterType: 'term' as const, values: ['none'], filterOperator: 'not' as const } };
    const notes: Record<string, string> = {
      adjacent: 'the perl module for parsing',
      reversed: 'a module written in perl for parsing',
      apart: 'perl and a module for parsing',
      removed: 'another perl module for parsing',
    };
    for (const [id, text] of Object.entries(notes)) index.add(id, { title: id, notes: text });
    index.add('fields', { title: 'perl', notes: 'module for parsing' });
    for (let i = 0; i < 30; i++) index.add(`filler${i}`, { title: `filler ${i}`, notes: 'perl or a module' });
    index.remove('removed');
    for (const q of ['perlmodule', 'perlmodule parsing'])
      for (const filters of [undefined, anyKind]) {
        const { total, hits } = answer(index, { q, filters });
        expect(hits[0]?.id).toBe('adjacent');
        // With `parsing`, every document holding that word matches too; the phrase alone matches one document.
        expect(total).toBe(q === 'perlmodule' ? 1 : 4);
      }
  });
});

describe('index lifecycle', () => {
  it('replaces and removes documents', () => {
    const shop = shopIndex();
    shop.add('p1', { ...shopProducts[0], title: 'Green sandal' });
    expect(ids(shop, { q: 'sandal' })).toEqual(['p1']);
    expect(ids(shop, { q: 'red' })).toEqual(['p3']);
    expect(shop.remove('p3')).toBe(true);
    expect(shop.remove('p3')).toBe(false);
    expect(shop.has('p3')).toBe(false);
    expect(shop.size).toBe(3);
    expect(ids(shop, { q: 'red' })).toEqual([]);
    expect(facet(shop, {}, 'brand')).toEqual([
      { value: 'Acme Sports', count: 2 },
      { value: 'Acme', count: 1 },
    ]);
  });
  it('survives compaction after many removals', () => {
    const index = new SearchIndex(shopConfig);
    for (let i = 0; i < 3000; i++) index.add(`d${i}`, { title: `item ${i % 2 ? 'odd' : 'even'}`, price: i });
    for (let i = 0; i < 2500; i++) index.remove(`d${i}`);
    expect(index.size).toBe(500);
    expect(index.search({ q: 'odd', page: 1, rows: 1, sort: 'price_asc' })).toMatchObject({ total: 250, hits: [{ id: 'd2501' }] });
  });
  it('looks whole words up as the index grows, before and after a load', () => {
    // A word not last in the query is matched whole only (no completion; no typo in a balanced field).
    const word = (i: number) => `q${i.toString(36)}`;
    const index = new SearchIndex(shopConfig);
    for (let i = 0; i < 700; i++) index.add(`d${i}`, { title: `${word(i)} item`, price: i });
    const loaded = SearchIndex.load(shopConfig, index.serialize());
    for (let i = 700; i < 3000; i++) loaded.add(`d${i}`, { title: `${word(i)} item`, price: i });
    for (const i of [1, 699, 700, 1500, 2999]) expect(ids(loaded, { q: `${word(i)} item` })[0]).toBe(`d${i}`);
  });
  it('serialize then load answers identically', () => {
    const shop = shopIndex();
    shop.remove('p4');
    const loaded = SearchIndex.load(shopConfig, shop.serialize());
    expect(loaded.size).toBe(3);
    const requests: SearchRequest[] = [
      { q: 'waterprof', page: 1, rows: 10 },
      { q: 'acme sports', page: 1, rows: 10 },
      { page: 1, rows: 10, sort: 'released_desc', filters: { tags: { filterType: 'tree', values: ['shoes'] } } },
    ];
    for (const request of requests) expect(loaded.search(request)).toEqual(shop.search(request));
    expect(loaded.suggest({ q: 'run', rows: 5 })).toEqual(shop.suggest({ q: 'run', rows: 5 }));
    loaded.add('p5', { title: 'Trail runner', price: 99 });
    // `runner` as typed first; its other forms (`run`, `running`) find the other shoes after it (`p2` filed under more categories).
    expect(ids(loaded, { q: 'runner' })).toEqual(['p5', 'p2', 'p1']);
    const debianLoaded = SearchIndex.load(debianConfig, debian.serialize());
    expect(debianLoaded.search({ q: 'web server', page: 1, rows: 20 })).toEqual(debian.search({ q: 'web server', page: 1, rows: 20 }));
  });
  it('projects payloads onto display fields', () => {
    expect(displayFields(shopConfig.fields, { title: 'x', secret: 'y', other: 1 })).toEqual({ title: 'x' });
  });
});

describe('relevance on the Debian sample', () => {
  it('finds a package first by its exact name', () => {
    for (const name of ['vim', 'nginx', 'python3', 'firefox-esr', 'openssh-server']) expect(ids(debian, { q: name })[0]).toBe(name);
  });
  it('finds a package first despite a typo', () => {
    expect(ids(debian, { q: 'ngionx' })[0]).toBe('nginx');
    expect(ids(debian, { q: 'firefx' })[0]).toBe('firefox-esr');
    expect(ids(debian, { q: 'opensh server' })[0]).toBe('openssh-server');
  });
  it('finds a package by a prefix', () => {
    expect(ids(debian, { q: 'ngin' })).toContain('nginx');
    expect(ids(debian, { q: 'firef' })[0]).toBe('firefox-esr');
  });
  it('an exact-mode field matches whole phrases only', () => {
    const games = debian.search({ q: 'games', page: 1, rows: 1, filters: { section: { filterType: 'term', values: ['games'] } } }).total;
    expect(games).toBeGreaterThan(0);
    expect(
      debian.search({ q: 'game', page: 1, rows: 1000, filters: { section: { filterType: 'term', values: ['games'] } } }).total,
    ).toBeLessThan(games);
  });
  it('suggests completions by document count, tolerating typos', () => {
    const suggestions = debian.suggest({ q: 'fire', rows: 3 });
    expect(suggestions[0].value).toBe('firefox');
    expect(suggestions.map((s) => s.count)).toEqual([...suggestions.map((s) => s.count)].sort((a, b) => b - a));
    expect(debian.suggest({ q: 'firefx', rows: 3 }).map((s) => s.value)).toContain('firefox');
    expect(debian.suggest({ q: 'web serv', rows: 3 })[0].value).toBe('web server');
  });
  it('completes a short last word where it follows the word before, beyond its most frequent completions', () => {
    const index = new SearchIndex({ fields: [field('title', 'string', { suggest: true })], sorts: [] });
    index.add('sonic-pi', { title: 'sonic-pi' });
    index.add('sonic', { title: 'sonic speed changer' });
    index.add('raspberry-pi', { title: 'raspberry-pi' });
    // 270 words starting with `p`, each in three documents: `pi` (in two) is not among the 256 most frequent.
    const word = (k: number) => `p${String.fromCharCode(97 + (k % 26))}${String.fromCharCode(97 + Math.floor(k / 26))}x`;
    for (let i = 0; i < 270; i++) index.add(`filler-${i}`, { title: `${word(i)} ${word((i + 1) % 270)} ${word((i + 2) % 270)}` });
    expect(index.suggest({ q: 'sonic p', rows: 5 })).toContainEqual({ value: 'sonic pi', count: 1 });
  });
  it('counts each live document once, however many suggest fields hold the word, and only those holding the earlier words', () => {
    const index = new SearchIndex({
      fields: [field('title', 'string', { suggest: true }), field('tagline', 'string', { suggest: true })],
      sorts: [],
    });
    index.add('a', { title: 'trail runner', tagline: 'a runner for trails' });
    index.add('b', { title: 'road runner', tagline: 'fast' });
    index.add('c', { title: 'runner up', tagline: 'runner' });
    index.add('d', { title: 'trail runner', tagline: 'runner' });
    index.remove('d');
    expect(index.suggest({ q: 'runn', rows: 5 })).toEqual([{ value: 'runner', count: 3 }]);
    expect(index.suggest({ q: 'trail runn', rows: 5 })).toEqual([{ value: 'trail runner', count: 1 }]);
  });
});

describe('text analysis shared with highlighting', () => {
  it('counts a swap of two adjacent letters as one edit, and stops past the limit', () => {
    expect(editDistance('wireshark', 'wrieshark')).toBe(1);
    expect(editDistance('gimp', 'gimp')).toBe(0);
    expect(editDistance('inkscape', 'inkscp')).toBe(2);
    expect(editDistance('firefox', 'chromium', 2)).toBe(3);
    expect(tokenize('Crème-Brûlée 2')).toEqual(['creme', 'brulee', '2']);
  });
});
