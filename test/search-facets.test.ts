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
