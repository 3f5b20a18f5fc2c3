import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, EdgeSearchError, type EdgeSearchClient, type SearchBody } from '../../packages/client/src/index.ts';
import { searchQueryParameters } from '../../packages/client/src/search-query.ts';
import { seedShopApp } from '../fixtures/shop-app';
import { BASE } from '../helpers';

const epoch = (date: string) => Date.parse(date);

/** Bodies GET expresses: each must answer exactly what its POST answers. */
const GET_BODIES: SearchBody[] = [
  {},
  { q: 'running', rows: 2, page: 2 },
  { q: 'red shoe', sort: 'cheapest' },
  { q: '', sort: { sort: 'price_desc' } },
  { sort: '' },
  { q: 'Ünï & + % ? = #', rows: 1 },
  { q: 'runing sho', facets: ['brand', 'price'], facetLimit: 1 },
  { q: 'shoe', facets: [] },
  { facetLimit: 2, facetLimits: { brand: 1, price: 0, 'specs.color': 3, tags: 1000 } },
  { q: 'red', facetLimits: { tags: 1 }, facets: ['tags', 'brand'] },
  { q: 'shoe', facetLimit: 1, facetPaths: { tags: 'shoes' }, facets: ['tags', 'brand'] },
  { facetPaths: { tags: '' } },
  {
    q: 'shoe',
    attributesToHighlight: ['*'],
    attributesToSnippet: ['title:2'],
    highlightPreTag: '<em class="a b">',
    highlightPostTag: '</em>&',
  },
  { q: 'red', attributesToHighlight: ['title'], highlightPreTag: '', highlightPostTag: '' },
  { q: 'red', attributesToHighlight: [] },
  { q: 'red', attributesToRetrieve: ['brand', 'price'], attributesToSnippet: ['title'] },
  { q: 'red', attributesToRetrieve: [] },
  { filters: { brand: { filterType: 'term', values: ['Acme', 'Trail Co'] } } },
  {
    filters: {
      brand: { filterType: 'term', filterOperator: 'or', values: ['Acme Sports'] },
      'specs.color': { filterType: 'term', values: ['red'] },
    },
  },
  { filters: { price: { filterType: 'term', values: [80, 10] } } },
  { filters: {} },
  { sort: 'cheapest', filters: { price: { filterType: 'range', minValue: 50, maxValue: 120 } } },
  { sort: 'cheapest', filters: { price: { filterType: 'range', minValue: 50.5 } } },
  { sort: 'cheapest', filters: { price: { filterType: 'range', maxValue: 80 * (1 - Number.EPSILON) } } },
  { filters: { price: { filterType: 'range', minValue: '', maxValue: 1e21 } } },
  { filters: { released: { filterType: 'range', minValue: epoch('2024-01-01') } } },
  { filters: { released: { filterType: 'range', filterDataType: 'date', minValue: '2024-01-01', maxValue: '2024-02-01T00:00:00Z' } } },
  {
    q: 'shoe',
    filters: { brand: { filterType: 'term', values: ['Acme'] }, price: { filterType: 'range', minValue: 10 } },
    facets: ['brand'],
  },
  { q: 'shoe', hybrid: { semanticRatio: 0 } },
  { q: 'shoe', requestId: 'r-7', userId: 'u 1', sessionId: 's', requestOrigin: 'https://a.example/?x=1' },
];

/** Bodies only POST expresses (or that POST rejects: the client leaves the error to the POST route). */
const POST_BODIES: SearchBody[] = [
  { filters: { brand: { filterType: 'term', filterOperator: 'not', values: ['Acme Sports'] } } },
  { filters: { tags: { filterType: 'term', filterOperator: 'and', values: ['shoes/running', 'sale'] } } },
  { filters: { tags: { filterType: 'tree', values: ['shoes'] } } },
  { filters: { price: { filterType: 'slider', minValue: 20 } } },
  { filters: { price: { filterType: 'range', filterOperator: 'not', minValue: 20, maxValue: 60 } } },
  { filters: { brand: { filterType: 'term', values: ['Acme..Trail'] } } },
  { filters: { released: { filterType: 'range', minValue: '2024' } } },
  { filters: { released: { filterType: 'range', minValue: 'a..b' } } },
  { filters: { brand: { filterType: 'term', values: [] } } },
  { facets: ['brand,price'] },
  { attributesToHighlight: [' title'] },
  { q: 'x'.repeat(4001) },
  { q: '\ud800' },
  { q: 'shoe', hybrid: { semanticRatio: Number.NaN } },
  { q: 'shoe', unknown: true } as SearchBody,
];

describe('search by GET in the typed client', () => {
  it('writes one canonical query string per question: fixed parameter order, filters by id, values sorted', () => {
    const a = searchQueryParameters({
      filters: { price: { filterType: 'range', minValue: 10 }, brand: { filterType: 'term', values: ['b', 'a'] } },
      attributesToHighlight: ['*'],
      rows: 20,
      page: 1,
      q: 'red shoe',
      sort: { sort: 'cheapest' },
    });
    const b = searchQueryParameters({
      q: 'red shoe',
      page: 1,
      rows: 20,
      sort: 'cheapest',
      attributesToHighlight: ['*'],
      filters: { brand: { filterType: 'term', values: ['a', 'b'] }, price: { filterType: 'range', minValue: 10, maxValue: undefined } },
    });
    expect(a).toEqual(b);
    expect(new URLSearchParams(a).toString()).toBe(
      'q=red+shoe&page=1&rows=20&sort=cheapest&attributesToHighlight=*&f.brand=a&f.brand=b&f.price=10..',
    );
    for (const body of POST_BODIES) expect(searchQueryParameters(body), JSON.stringify(body)).toBeUndefined();
  });

  describe('against the worker', () => {
    const methods: string[] = [];
    let client: EdgeSearchClient;
    let path = '';
    beforeAll(async () => {
      const { tenant, code } = await seedShopApp('client-get');
      path = `/api/v1/search/${tenant}/${code}`;
      client = createClient({
        url: BASE,
        tenant,
        app: code,
        fetch: (input, init) => (methods.push(init?.method ?? 'GET'), exports.default.fetch(new Request(input, init))),
      });
    });

    /** The client's answer (recording its method) and the POST route's answer to the same body, or their error bodies. */
    async function bothWays(body: SearchBody) {
      const settle = (answer: Promise<{ result: object; requestId: string }>) =>
        answer.then(
          ({ result, requestId }) => ({ ...result, time: 0, requestId: body.requestId && requestId }),
          (error: unknown) => (error instanceof EdgeSearchError ? { status: error.status, message: error.message } : Promise.reject(error)),
        );
      methods.length = 0;
      const viaClient = await settle(client.search(body));
      const method = methods[0];
      const viaPost = await settle(client.request('POST', path, { json: body }));
      return { method, viaClient, viaPost };
    }

    it('answers every body GET can express by GET, exactly as POST answers it', async () => {
      for (const body of GET_BODIES) {
        const { method, viaClient, viaPost } = await bothWays(body);
        expect(method, JSON.stringify(body)).toBe('GET');
        expect(viaClient, JSON.stringify(body)).toEqual(viaPost);
        expect(viaClient, JSON.stringify(body)).toHaveProperty('documents');
      }
    });

    it('sends the rest by POST', async () => {
      for (const body of POST_BODIES) {
        const { method, viaClient, viaPost } = await bothWays(body);
        expect(method, JSON.stringify(body)).toBe('POST');
        expect(viaClient).toEqual(viaPost);
      }
    });

    it('reads a GET range bound written as a number as epoch milliseconds on a date facet', async () => {
      const { result } = await client.search({ filters: { released: { filterType: 'range', minValue: epoch('2024-01-01') } } });
      expect(result.documents.map((d) => d.id).sort()).toEqual(['p1', 'p2']);
      expect(methods.at(-1)).toBe('GET');
    });

    it('suggests by GET', async () => {
      methods.length = 0;
      const { suggestions } = await client.suggest('red runn', { rows: 3 });
      expect(methods).toEqual(['GET']);
      expect(suggestions).toEqual([{ value: 'red running', count: 1 }]);
    });
  });
});
