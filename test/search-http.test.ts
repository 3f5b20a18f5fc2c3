import { beforeAll, describe, expect, it } from 'vitest';
import { seedShopApp, shopSchema } from './fixtures/shop-app';
import { call, createTenantWithApp, createToken, expectOk, json } from './helpers';

let base = '';
beforeAll(async () => {
  const { tenant, code } = await seedShopApp('search');
  base = `/api/v1/search/${tenant}/${code}`;
});

type SearchBody = { statusCode: number; requestId: string; time: number; result: any };
const get = async (query: string) => call('GET', `${base}?${query}`);
const post = async (body: unknown) => call('POST', base, { body });
const ids = (body: SearchBody) => body.result.documents.map((d: { id: string }) => d.id);

async function same(query: string, body: unknown): Promise<SearchBody> {
  const [viaGet, viaPost] = await Promise.all([get(query), post(body)]);
  expect(viaGet.status).toBe(200);
  expect(viaPost.status, await viaPost.clone().text()).toBe(200);
  const a = await json<SearchBody>(viaGet);
  const b = await json<SearchBody>(viaPost);
  expect({ ...a.result, time: 0 }).toEqual({ ...b.result, time: 0 });
  return a;
}

describe('search over HTTP', () => {
  it('answers a SearchResponse with display fields, facets and paging; GET and POST agree', async () => {
    const body = await same('q=running&requestId=r-1', { q: 'running', requestId: 'r-1' });
    expect(body).toMatchObject({ statusCode: 200, requestId: 'r-1' });
    expect(ids(body)).toEqual(expect.arrayContaining(['p1', 'p2', 'p4']));
    expect(body.result.documents[0].position).toBe(1);
    expect(body.result.documents[0].document).not.toHaveProperty('secret');
    expect(body.result.documents.find((d: any) => d.id === 'p1').document).toEqual({
      title: 'Red running shoe',
      brand: 'Acme Sports',
      price: 50,
    });
    expect(body.result.paging).toEqual({ page: 1, rows: 10, total: 3, totalPages: 1 });
    expect(body.result.facets[0].id).toBe('brand');
  });

  it('filters by term (repeatable), range (min..max, open ends), tree and attribute facets', async () => {
    let body = await same('f.brand=Acme&f.brand=Trail%20Co', { filters: { brand: { filterType: 'term', values: ['Acme', 'Trail Co'] } } });
    expect(ids(body).sort()).toEqual(['p2', 'p3']);
    body = await same('f.price=50..120&sort=price_asc', {
      sort: { sort: 'price_asc' },
      filters: { price: { filterType: 'range', minValue: 50, maxValue: 120 } },
    });
    expect(ids(body)).toEqual(['p1', 'p2', 'p3']);
    body = await same('f.price=..50&sort=price_asc', {
      sort: { sort: 'price_asc' },
      filters: { price: { filterType: 'slider', maxValue: '50' } },
    });
    expect(ids(body)).toEqual(['p4', 'p1']);
    body = await same('f.released=2024-01-01..&sort=price_asc', {
      sort: { sort: 'price_asc' },
      filters: { released: { filterType: 'range', filterDataType: 'date', minValue: '2024-01-01' } },
    });
    expect(ids(body)).toEqual(['p1', 'p2']);
    body = await same('f.tags=shoes&sort=price_asc', {
      sort: { sort: 'price_asc' },
      filters: { tags: { filterType: 'tree', values: ['shoes'] } },
    });
    expect(ids(body)).toEqual(['p1', 'p2', 'p3']);
    body = await same('f.specs.color=red&sort=price_asc', {
      sort: { sort: 'price_asc' },
      filters: { 'specs.color': { filterType: 'term', values: ['red'] } },
    });
    expect(ids(body)).toEqual(['p1', 'p3']);
    const not = await json<SearchBody>(
      await post({ sort: 'price_asc', filters: { brand: { filterType: 'term', filterOperator: 'not', values: ['Acme Sports'] } } }),
    );
    expect(ids(not)).toEqual(['p2', 'p3']);
    const and = await json<SearchBody>(
      await post({ filters: { tags: { filterType: 'term', filterOperator: 'and', values: ['shoes/running', 'sale'] } } }),
    );
    expect(ids(and)).toEqual(['p2']);
  });

  it('caps facet values with facetLimit', async () => {
    const body = await same('facetLimit=1', { facetLimit: 1 });
    expect(body.result.facets.find((f: any) => f.id === 'brand').values).toEqual([{ value: 'Acme Sports', count: 2 }]);
    expect((await get('facetLimit=0')).status).toBe(400);
  });

  it('caps each facet with facetLimits (GET facetLimit.{id}), 0 answering only stats, with or without a query', async () => {
    const valuesOf = (body: SearchBody) => Object.fromEntries(body.result.facets.map((f: any) => [f.id, f.values.length]));
    // The whole-index facets are cached with the largest limit asked so far: a smaller one is cut from them.
    expect(valuesOf(await same('facetLimit=1000', { facetLimit: 1000 }))).toMatchObject({ brand: 3, tags: 5, price: 4 });
    for (const q of ['', 'q=shoe&']) {
      const body = await same(`${q}facetLimit=2&facetLimit.brand=1&facetLimit.price=0&facetLimit.specs.color=3`, {
        q: q ? 'shoe' : undefined,
        facetLimit: 2,
        facetLimits: { brand: 1, price: 0, 'specs.color': 3 },
      });
      // Shoes come in two colours, the whole shop in three.
      expect(valuesOf(body)).toMatchObject({ brand: 1, price: 0, 'specs.color': q ? 2 : 3, tags: 2 });
      expect(body.result.facetStats.price).toMatchObject({ min: q ? 50 : 10 });
    }
    const unknown = await get('facetLimit.nope=1&facetLimit.brand=1001');
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).details.map((d: { path: string }) => d.path)).toEqual(['facetLimits.brand']);
    const unknownFacet = await json(await post({ facetLimits: { nope: 1 } }));
    expect(unknownFacet).toMatchObject({ statusCode: 400, details: [{ path: 'facetLimits.nope', message: "unknown facet 'nope'" }] });
  });

  it('answers a categories facet as a menu opened at facetPaths shows it (GET facetPath.{id}), 400 for other facets', async () => {
    const tagsOf = (body: SearchBody) => body.result.facets.find((f: any) => f.id === 'tags').values.map((v: any) => v.value);
    const everything = tagsOf(await same('facetLimit=1000', { facetLimit: 1000 }));
    expect(everything.some((tag: string) => tag.includes('/'))).toBe(true);
    const top = await same('facetPath.tags=', { facetPaths: { tags: '' } });
    expect(tagsOf(top)).toEqual(everything.filter((tag: string) => !tag.includes('/')));
    for (const q of ['', 'q=shoe&']) {
      const opened = await same(`${q}facetPath.tags=shoes`, { q: q ? 'shoe' : undefined, facetPaths: { tags: 'shoes' } });
      expect(tagsOf(opened)).toContain('shoes/running');
      expect(tagsOf(opened).every((tag: string) => !tag.includes('/') || /^shoes\/[^/]+$/.test(tag))).toBe(true);
    }
    const notCategories = await json(await get('facetPath.brand=a'));
    expect(notCategories).toMatchObject({
      statusCode: 400,
      details: [{ path: 'facetPaths.brand', message: "'brand' is not a categories facet" }],
    });
    const tooLong = await json(await post({ facetPaths: { tags: 'x'.repeat(1001) } }));
    expect(tooLong).toMatchObject({ statusCode: 400, details: [{ path: 'facetPaths.tags' }] });
  });

  it('counts an or-filtered facet disjunctively', async () => {
    const body = await same('f.brand=Acme', { filters: { brand: { filterType: 'term', values: ['Acme'] } } });
    expect(body.result.facets.find((f: any) => f.id === 'brand').values).toEqual([
      { value: 'Acme Sports', count: 2 },
      { value: 'Acme', count: 1 },
      { value: 'Trail Co', count: 1 },
    ]);
  });

  it('sorts by field and named sorts, and pages to the last page and beyond', async () => {
    expect(ids(await same('sort=price_desc', { sort: { sort: 'price_desc', field: 'x', direction: 'y' } }))).toEqual([
      'p3',
      'p2',
      'p1',
      'p4',
    ]);
    expect(ids(await same('sort=cheapest&rows=2&page=2', { sort: { sort: 'cheapest' }, rows: 2, page: 2 }))).toEqual(['p2', 'p3']);
    const last = await same('sort=cheapest&rows=3&page=2', { sort: { sort: 'cheapest' }, rows: 3, page: 2 });
    expect(last.result.documents).toEqual([{ id: 'p3', position: 4, document: expect.objectContaining({ title: 'Red hiking boot' }) }]);
    const beyond = await same('rows=3&page=5', { rows: 3, page: 5 });
    expect(beyond.result).toMatchObject({ total: 4, documents: [], paging: { page: 5, rows: 3, total: 4, totalPages: 2 } });
  });

  it('answers 400 for invalid paging, unknown sorts and facets, values that do not fit', async () => {
    const cases: Array<[string, string]> = [
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['rows=0', 'rows'],
      ['rows=101', 'rows'],
      ['sort=colour_asc', 'sort'],
      ['f.colour=red', 'filters.colour'],
      ['f.price=cheap..', 'filters.price.minValue'],
    ];
    for (const [query, path] of cases) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(
        (await json(res)).details.map((d: { path: string }) => d.path),
        query,
      ).toContain(path);
    }
    const bad = await post({ rows: 0, filters: { price: { filterType: 'between' } } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(['rows', 'filters.price.filterType']),
    );
    expect((await call('POST', base, { rawBody: '{', headers: { 'Content-Type': 'application/json' } })).status).toBe(400);
  });

  it('answers 404 for an unknown tenant or search app', async () => {
    expect((await call('GET', '/api/v1/search/no-such-tenant/shop')).status).toBe(404);
    expect((await call('POST', `${base.replace(/shop$/, 'nope')}`, { body: {} })).status).toBe(404);
    expect((await call('GET', `/api/v1/search/suggest/no-such-tenant/shop?q=a`)).status).toBe(404);
  });

  it('allows any origin and caches GET answers briefly', async () => {
    const preflight = await call('OPTIONS', base, {
      headers: {
        Origin: 'https://shop.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'Content-Type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(preflight.headers.get('Access-Control-Allow-Methods')).toContain('POST');
    const res = await call('GET', `${base}?q=shoe`, { headers: { Origin: 'https://shop.example' } });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=5');
    expect((await post({ q: 'shoe' })).headers.get('Cache-Control')).toBeNull();
    // A page reads error answers too: the one error body, open to any origin, never cached.
    const rejected = await call('GET', `${base}?q=shoe&rows=0`, { headers: { Origin: 'https://shop.example' } });
    expect(rejected.status).toBe(400);
    expect(rejected.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(rejected.headers.get('Cache-Control')).toBeNull();
    expect(await json(rejected)).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });
});

describe('facet selection and stats over HTTP', () => {
  it('computes only the listed facets, none for an empty list, and answers numeric stats', async () => {
    const body = await same('q=running&facets=brand,price', { q: 'running', facets: ['brand', 'price'] });
    expect(body.result.facets.map((f: { id: string }) => f.id)).toEqual(['brand', 'price']);
    expect(body.result.facetStats).toEqual({ price: { min: 10, max: 80, avg: 140 / 3, sum: 140 } });
    const none = await same('q=running&facets=', { q: 'running', facets: [] });
    expect(none.result).toMatchObject({ facets: [], facetStats: {}, total: 3 });
    const all = await same('', {});
    expect(all.result.facets.length).toBeGreaterThan(2);
    expect(Object.keys(all.result.facetStats).sort()).toEqual(['price', 'released']);
    const bad = await get('facets=brand,colour');
    expect(bad.status).toBe(400);
    expect((await json(bad)).details).toEqual([{ path: 'facets.1', message: "unknown facet 'colour'" }]);
  });
});

describe('highlighting over HTTP', () => {
  const doc = (body: SearchBody, id: string) => body.result.documents.find((d: { id: string }) => d.id === id);

  it('marks the searched display fields by default, prefix matches included; none without query words', async () => {
    const body = await same('q=red%20run', { q: 'red run' });
    expect(doc(body, 'p1')).toMatchObject({
      highlight: { title: '<mark>Red</mark> <mark>run</mark>ning shoe', brand: 'Acme Sports' },
    });
    expect(doc(body, 'p1')).not.toHaveProperty('snippet');
    const browse = await same('rows=1', { rows: 1 });
    expect(browse.result.documents[0]).not.toHaveProperty('highlight');
  });

  it('takes the fields, snippet word counts and tags from the request, escaping the rest', async () => {
    const body = await same(
      'q=hiking&attributesToHighlight=title&attributesToSnippet=title:2,brand&highlightPreTag=%3Cem%3E&highlightPostTag=%3C/em%3E',
      {
        q: 'hiking',
        attributesToHighlight: ['title'],
        attributesToSnippet: ['title:2', 'brand'],
        highlightPreTag: '<em>',
        highlightPostTag: '</em>',
      },
    );
    expect(doc(body, 'p3')).toMatchObject({
      highlight: { title: 'Red <em>hiking</em> boot' },
      snippet: { title: '…<em>hiking</em> boot', brand: 'Trail Co' },
    });
    expect(doc(body, 'p3').highlight).not.toHaveProperty('brand');
    const none = await same('q=hiking&attributesToHighlight=', { q: 'hiking', attributesToHighlight: [] });
    expect(doc(none, 'p3')).not.toHaveProperty('highlight');
    const all = await same('attributesToHighlight=*&rows=1&sort=price_asc', { attributesToHighlight: ['*'], rows: 1, sort: 'price_asc' });
    expect(all.result.documents[0].highlight).toEqual({ title: 'Running socks', brand: 'Acme Sports' });
  });

  it('answers 400 for fields that are not displayed strings and for bad snippet sizes', async () => {
    const cases: Array<[string, string]> = [
      ['attributesToHighlight=secret', 'attributesToHighlight.0'],
      ['attributesToHighlight=title,nope', 'attributesToHighlight.1'],
      ['attributesToHighlight=price', 'attributesToHighlight.0'],
      ['attributesToSnippet=title:0', 'attributesToSnippet.0'],
      ['attributesToSnippet=title:x', 'attributesToSnippet.0'],
      ['attributesToSnippet=nope', 'attributesToSnippet'],
    ];
    for (const [query, path] of cases) {
      const res = await get(`q=red&${query}`);
      expect(res.status, query).toBe(400);
      expect(
        (await json(res)).details.map((d: { path: string }) => d.path),
        query,
      ).toContain(path);
    }
    expect((await post({ attributesToHighlight: 'title' })).status).toBe(400);
  });
});

describe('fields to retrieve over HTTP', () => {
  const doc = (body: SearchBody, id: string) => body.result.documents.find((d: { id: string }) => d.id === id);

  it('answers only the listed displayed fields, highlights and snippets still of any displayed string field', async () => {
    const body = await same('q=running&attributesToRetrieve=price&attributesToSnippet=title:1', {
      q: 'running',
      attributesToRetrieve: ['price'],
      attributesToSnippet: ['title:1'],
    });
    expect(doc(body, 'p1')).toMatchObject({
      document: { price: 50 },
      highlight: { title: 'Red <mark>running</mark> shoe', brand: 'Acme Sports' },
      snippet: { title: '…<mark>running</mark>…' },
    });
    expect(Object.keys(doc(body, 'p1').document)).toEqual(['price']);
    const none = await same('q=running&attributesToRetrieve=', { q: 'running', attributesToRetrieve: [] });
    expect(doc(none, 'p1').document).toEqual({});
    const all = await same('q=running&attributesToRetrieve=*', { q: 'running', attributesToRetrieve: ['*'] });
    expect(doc(all, 'p1').document).toEqual({ title: 'Red running shoe', brand: 'Acme Sports', price: 50 });
  });

  it('answers 400 for a field that is unknown or not displayed', async () => {
    for (const [query, path] of [
      ['attributesToRetrieve=secret', 'attributesToRetrieve.0'],
      ['attributesToRetrieve=title,nope', 'attributesToRetrieve.1'],
    ]) {
      const res = await get(`q=red&${query}`);
      expect(res.status, query).toBe(400);
      expect((await json(res)).details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
    expect((await post({ attributesToRetrieve: 'title' })).status).toBe(400);
  });

  it('answers an app never fed with no documents, not a 400, as for highlight options', async () => {
    const { tenant, code } = await createTenantWithApp('unfed', 'shop');
    const admin = await createToken(tenant, 'admin');
    await expectOk(call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, { token: admin.token, body: shopSchema }));
    const res = await call('GET', `/api/v1/search/${tenant}/${code}?q=red&attributesToRetrieve=title&attributesToHighlight=title`);
    expect(res.status).toBe(200);
    expect((await json(res)).result).toMatchObject({ total: 0, documents: [] });
  });
});

describe('suggest over HTTP', () => {
  it('completes typo- and prefix-tolerantly, ranked by document count; GET and POST agree', async () => {
    const suggestBase = base.replace('/api/v1/search/', '/api/v1/search/suggest/');
    const viaGet = await json(await call('GET', `${suggestBase}?q=runn&rows=5&requestId=s-1`));
    expect(viaGet).toMatchObject({ statusCode: 200, requestId: 's-1', suggestions: [{ value: 'running', count: 3 }] });
    const viaPost = await json(await call('POST', suggestBase, { body: { q: 'runn', rows: 5 } }));
    expect(viaPost.suggestions).toEqual(viaGet.suggestions);
    expect((await json(await call('GET', `${suggestBase}?q=hikng`))).suggestions[0]).toEqual({ value: 'hiking', count: 1 });
    expect((await call('GET', `${suggestBase}?q=a&rows=0`)).status).toBe(400);
    const preflight = await call('OPTIONS', suggestBase, {
      headers: { Origin: 'https://x.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });
});
