import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { AnswerMemo, searchKey, suggestKey } from '../../src/search/answers';
import type { SearchRequest } from '../../src/search/engine/types';
import { answerEnd, edgeCacheUrl } from '../../src/search/edge-cache';
import { compressEnd } from '../../src/search/gzip-splice';
import { searchAppSchemaInput } from '../../src/search/field-schema';
import { bulk, edgeCacheApp, envelope, feedingApp, settled, type FeedingApp } from '../feeding/helpers';
import { ADMIN_TOKEN, BASE, call, expectOk, json, waitFor } from '../helpers';

const schema = {
  fields: [
    { code: 'title', dataType: 'string', searchMode: 'balanced', display: true, suggest: true },
    { code: 'brand', dataType: 'string', searchMode: 'exact', display: true, facet: true, navigation: true },
  ],
};

let app: FeedingApp;
let base = '';

async function feed(id: string, title: string, brand: string) {
  const res = await expectOk(bulk(app, [envelope(id, { title, brand })]));
  const [entry] = (await json<{ documents: Array<{ id: number }> }>(res)).documents;
  expect((await settled(app, entry.id)).state).toBe('FINISHED');
}

beforeAll(async () => {
  app = await feedingApp(schema);
  await feed('p1', 'Red running shoe', 'Acme');
  await feed('p2', 'Blue running shoe', 'Trail Co');
  base = `/api/v1/search/${app.tenant}/${app.code}`;
});

const get = (query: string, headers?: Record<string, string>) => call('GET', `${base}?${query}`, { headers });
const outcome = async (res: Response) => ({ cache: res.headers.get('X-Edge-Cache'), body: await json(res) });

describe('edge cache of public search and suggest', () => {
  it('answers a repeated GET search from the cache, whatever the parameter order, defaults or tracking fields', async () => {
    const first = await outcome(await get('q=shoe&f.brand=Acme&requestId=a'));
    expect(first.cache).toBe('MISS');
    expect(first.body).toMatchObject({ statusCode: 200, requestId: 'a', result: { total: 1 } });

    const again = await outcome(await get('f.brand=Acme&page=1&rows=10&q=shoe&requestId=b&userId=u'));
    expect(again.cache).toBe('HIT');
    expect(again.body.requestId).toBe('b');
    expect(again.body.result).toEqual(first.body.result);

    // The Cache API holds it under the index version, for every isolate of the data centre.
    const key = searchKey({ q: 'shoe', page: 1, rows: 10, filters: { brand: { filterType: 'term', values: ['Acme'] } } });
    const url = edgeCacheUrl(BASE, await edgeCacheApp(app), await app.searchApp.indexVersion(), key);
    const stored = await waitFor(
      () => caches.default.match(url), // the put runs after the answer, in waitUntil
      (entry) => entry !== undefined,
    );
    expect(JSON.parse((await stored?.text()) ?? 'null')).toEqual(first.body.result);

    expect((await get('q=shoe&f.brand=Trail%20Co')).headers.get('X-Edge-Cache')).toBe('MISS');
    const marked = await outcome(await get('q=shoe&f.brand=Acme&highlightPreTag=%3Cb%3E'));
    expect(marked.cache).toBe('MISS');
    expect(JSON.stringify(marked.body.result)).toContain('<b>');
  });

  it('answers a repeat of the very same URL from memory, echoing its requestId, and never remembers a rejected one', async () => {
    const query = 'q=blue&rows=3&requestId=same';
    const first = await outcome(await get(query));
    expect(first.cache).toBe('MISS');
    const again = await outcome(await get(query));
    expect(again).toMatchObject({ cache: 'HIT', body: { requestId: 'same', result: first.body.result } });
    expect(again.body.result.documents.map((d: { id: string }) => d.id)).toEqual(['p2']);
    // Asked fresh, the same URL is computed again.
    expect((await get(query, { 'Cache-Control': 'no-cache' })).headers.get('X-Edge-Cache')).toBe('BYPASS');
    for (let i = 0; i < 2; i++) expect((await get('q=blue&rows=0')).status).toBe(400);
  });

  it('answers a repeat of the very same suggest URL from memory too, and still rejects a bad one after good ones', async () => {
    const path = `/api/v1/search/suggest/${app.tenant}/${app.code}?q=blu&requestId=sug`;
    const first = await outcome(await call('GET', path));
    expect(first).toMatchObject({ cache: 'MISS', body: { requestId: 'sug', suggestions: [{ value: 'blue' }] } });
    const again = await outcome(await call('GET', path));
    expect(again).toMatchObject({ cache: 'HIT', body: { requestId: 'sug', suggestions: first.body.suggestions } });
    for (let i = 0; i < 2; i++)
      expect((await call('GET', `/api/v1/search/suggest/${app.tenant}/${app.code}?q=blu&rows=0`)).status).toBe(400);
    // A known URL of another app path is no licence for an unknown one.
    expect((await call('GET', `/api/v1/search/suggest/${app.tenant}/no-such-app?q=blu&requestId=sug`)).status).toBe(404);
  });

  it('gives a repeat the headers of the answer it repeats, the cache status aside', async () => {
    const query = 'q=red&rows=2';
    const first = await get(query);
    const again = await get(query);
    expect([first.headers.get('X-Edge-Cache'), again.headers.get('X-Edge-Cache')]).toEqual(['MISS', 'HIT']);
    const others = (res: Response) => [...res.headers].filter(([name]) => name !== 'x-edge-cache');
    expect(others(again)).toEqual(others(first));
    expect(again.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(again.headers.get('Cache-Control')).toBe('public, max-age=5');
    expect(again.headers.get('Vary')).toBe('Accept-Encoding');
  });

  it('sends a repeated answer as gzip to clients that prefer it, compressed once, and JSON to the others', async () => {
    const asked = (acceptEncoding: string, requestId: string) =>
      exports.default.fetch(
        new Request(`${BASE}${base}?q=shoe&rows=4&requestId=${requestId}`, { cf: { clientAcceptEncoding: acceptEncoding } }),
      );
    const browser = 'gzip, deflate, br, zstd';
    const first = await asked(browser, 'r0');
    // Computed: JSON, which Cloudflare compresses for the client.
    expect(first.headers.get('Content-Encoding')).toBeNull();
    const { result } = await json(first);
    // Its first repeat compresses its end in the background; the repeats after it send that.
    const zipped = await waitFor(
      () => asked(browser, 'r1'),
      (res) => res.headers.get('Content-Encoding') === 'gzip',
    );
    expect(zipped.headers.get('X-Edge-Cache')).toBe('HIT');
    expect(zipped.headers.get('Vary')).toBe('Accept-Encoding');
    // Read through the runtime, which decodes gzip as a browser does (plain bytes sent as gzip would fail here).
    expect(await json(zipped)).toEqual({ statusCode: 200, requestId: 'r1', time: expect.any(Number), result });

    for (const acceptEncoding of ['', 'identity', 'br, gzip', 'gzip;q=0, br', 'identity, gzip']) {
      const plain = await asked(acceptEncoding, 'r2');
      expect(plain.headers.get('X-Edge-Cache')).toBe('HIT');
      expect(plain.headers.get('Content-Encoding')).toBeNull();
      expect(await json(plain)).toEqual({ statusCode: 200, requestId: 'r2', time: expect.any(Number), result });
    }
    expect((await asked('br;q=0.5, gzip;q=0.8', 'r3')).headers.get('Content-Encoding')).toBe('gzip');
  });

  it('computes a fresh answer for Cache-Control: no-cache and for POST', async () => {
    await get('q=running');
    expect((await get('q=running', { 'Cache-Control': 'no-cache' })).headers.get('X-Edge-Cache')).toBe('BYPASS');
    const viaPost = await call('POST', base, { body: { q: 'running' } });
    expect(viaPost.status).toBe(200);
    expect(viaPost.headers.get('X-Edge-Cache')).toBe('BYPASS');
  });

  it('caches suggest the same way', async () => {
    const path = `/api/v1/search/suggest/${app.tenant}/${app.code}?q=runn`;
    const first = await outcome(await call('GET', path));
    const again = await outcome(await call('GET', `${path}&rows=10`));
    expect([first.cache, again.cache]).toEqual(['MISS', 'HIT']);
    expect(again.body.suggestions).toEqual(first.body.suggestions);
    expect(first.body.suggestions[0].value).toBe('running');
  });

  it('stops answering a cached page once a change gives the index a new version', async () => {
    const before = await outcome(await get('q=running&rows=5'));
    expect(before.body.result.total).toBe(2);
    expect((await get('q=running&rows=5')).headers.get('X-Edge-Cache')).toBe('HIT');

    const version = await app.searchApp.indexVersion();
    await feed('p3', 'Green running shoe', 'Acme');
    expect(await app.searchApp.indexVersion()).toBeGreaterThan(version);

    // The worker trusts the version it learned for VERSION_BOUND_MS; then the new version misses and answers the change.
    const after = await waitFor(
      async () => outcome(await get('q=running&rows=5')),
      (seen) => seen.body.result.total === 3,
    );
    expect(after.cache).toBe('MISS');
    expect((await get('q=running&rows=5')).headers.get('X-Edge-Cache')).toBe('HIT');
  });

  it('gives the index a new version at a re-index, so answers of the old configuration are not reused', async () => {
    const version = await app.searchApp.indexVersion();
    const { documents } = await app.searchApp.reindex({ fields: searchAppSchemaInput.parse(schema).fields, sorts: [] });
    expect(documents).toBe(3);
    expect(await app.searchApp.indexVersion()).toBeGreaterThan(version);
  });
});

describe('a repeat answered before routing (an app without a rate limit: nothing to wait on)', () => {
  let open: FeedingApp;
  let path = '';

  beforeAll(async () => {
    open = await feedingApp(schema);
    const admin = `/api/v1/admin/searchapps/${open.tenant}/${open.code}`;
    await expectOk(call('PUT', admin, { token: ADMIN_TOKEN, body: { rateLimit: 'off' } }));
    const res = await expectOk(bulk(open, [envelope('s1', { title: 'Green trail shoe', brand: 'Acme' })]));
    const [entry] = (await json<{ documents: Array<{ id: number }> }>(res)).documents;
    expect((await settled(open, entry.id)).state).toBe('FINISHED');
    path = `/api/v1/search/${open.tenant}/${open.code}?q=shoe&rows=5`;
  });

  const viaBrowser = (requestId: string) =>
    exports.default.fetch(new Request(`${BASE}${path}&requestId=${requestId}`, { cf: { clientAcceptEncoding: 'gzip, deflate, br' } }));

  it('gives the routed answer: every header but the cache status, the requestId echoed, gzip once compressed', async () => {
    const first = await viaBrowser('a');
    expect(first.headers.get('X-Edge-Cache')).toBe('MISS');
    const { result } = await json(first);
    const again = await viaBrowser('b');
    const others = (res: Response) => [...res.headers].filter(([name]) => name !== 'x-edge-cache');
    expect(again.headers.get('X-Edge-Cache')).toBe('HIT');
    expect(others(again)).toEqual(others(first));
    expect(await json(again)).toEqual({ statusCode: 200, requestId: 'b', time: expect.any(Number), result });
    const zipped = await waitFor(
      () => viaBrowser('c'),
      (res) => res.headers.get('Content-Encoding') === 'gzip',
    );
    expect(zipped.headers.get('X-Edge-Cache')).toBe('HIT');
    expect(await json(zipped)).toEqual({ statusCode: 200, requestId: 'c', time: expect.any(Number), result });
  });

  it('answers GET only: the preflight, POST, HEAD and a fresh GET of a known URL still go through the routes', async () => {
    expect((await call('GET', path)).status).toBe(200);
    expect((await call('GET', path)).headers.get('X-Edge-Cache')).toBe('HIT');
    const preflight = await call('OPTIONS', path, { headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Methods')).toBe('GET,POST,OPTIONS');
    const posted = await call('POST', path, { body: { q: 'shoe', rows: 5 } });
    expect(posted.headers.get('X-Edge-Cache')).toBe('BYPASS');
    expect(posted.headers.get('Cache-Control')).toBeNull();
    const head = await call('HEAD', path);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await call('GET', path, { headers: { 'Cache-Control': 'no-cache' } })).headers.get('X-Edge-Cache')).toBe('BYPASS');
  });
});

describe('the edge cache with fresh requests and many answers', () => {
  it('stores the answer of a fresh request that this isolate had not stored yet', async () => {
    const res = await get('q=blue&rows=2', { 'Cache-Control': 'no-cache' });
    expect(res.headers.get('X-Edge-Cache')).toBe('BYPASS');
    const result = (await json<{ result: unknown }>(res)).result;
    const key = searchKey({ q: 'blue', page: 1, rows: 2, filters: {} });
    const url = edgeCacheUrl(BASE, await edgeCacheApp(app), await app.searchApp.indexVersion(), key);
    const stored = await waitFor(
      () => caches.default.match(url),
      (entry) => entry !== undefined,
    );
    expect(JSON.parse((await stored?.text()) ?? 'null')).toEqual(result);
  });

  it('keeps an app’s recurring answers in the isolate’s memory beyond half a million characters', async () => {
    const big = await feedingApp({
      fields: [
        { code: 'title', dataType: 'string', searchMode: 'balanced', display: true },
        { code: 'notes', dataType: 'string', searchMode: 'off', display: true },
      ],
    });
    const res = await expectOk(bulk(big, [envelope('b1', { title: 'Boot', notes: 'n'.repeat(12_000) })]));
    const [entry] = (await json<{ documents: Array<{ id: number }> }>(res)).documents;
    expect((await settled(big, entry.id)).state).toBe('FINISHED');
    const path = (rows: number) => `/api/v1/search/${big.tenant}/${big.code}?q=boot&rows=${rows}`;
    const cacheUrl = async (rows: number) =>
      edgeCacheUrl(BASE, await edgeCacheApp(big), await big.searchApp.indexVersion(), searchKey({ q: 'boot', page: 1, rows, filters: {} }));

    // 45 questions of 12,000 characters each (540,000 in all), as a shop's recurring queries.
    const questions = Array.from({ length: 45 }, (_, i) => i + 1);
    for (const rows of questions) expect((await call('GET', path(rows))).headers.get('X-Edge-Cache')).toBe('MISS');
    for (const rows of questions) {
      const url = await cacheUrl(rows);
      await waitFor(
        () => caches.default.match(url),
        (stored) => stored !== undefined,
      );
      await caches.default.delete(url);
    }
    // Gone from the Cache API, the first question is still answered from the isolate's memory.
    const again = await call('GET', path(1));
    expect(again.headers.get('X-Edge-Cache')).toBe('HIT');
    expect((await json<{ result: { total: number } }>(again)).result.total).toBe(1);
  });
});

describe('the edge cache on workers.dev', () => {
  it('never looks up the Cache API, which stores nothing there, and still answers repeats from memory', async () => {
    const origin = 'https://edge-search.example.workers.dev';
    const url = `${origin}/api/v1/search/${app.tenant}/${app.code}?q=shoe&rows=1`;
    // An entry planted where the answer would be filed: a lookup would answer it.
    const key = searchKey({ q: 'shoe', page: 1, rows: 1, filters: {} });
    const planted = edgeCacheUrl(origin, await edgeCacheApp(app), await app.searchApp.indexVersion(), key);
    await caches.default.put(planted, new Response('{"total":-1}', { headers: { 'Cache-Control': 'max-age=600' } }));

    const first = await exports.default.fetch(new Request(url));
    expect(first.headers.get('X-Edge-Cache')).toBe('MISS');
    expect((await json<{ result: { total: number } }>(first)).result.total).toBeGreaterThan(0);
    const again = await exports.default.fetch(new Request(url));
    expect(again.headers.get('X-Edge-Cache')).toBe('HIT');
    expect((await json<{ result: { total: number } }>(again)).result.total).toBeGreaterThan(0);
  });
});

describe("the isolate's memory of answers and their compressed ends", () => {
  it('counts compressed ends towards its bound of 2,000,000 characters per app, letting older answers go', async () => {
    const big = await feedingApp({
      fields: [
        { code: 'title', dataType: 'string', searchMode: 'balanced', display: true },
        { code: 'notes', dataType: 'string', searchMode: 'off', display: true },
      ],
    });
    // Incompressible notes (random base64: deflate keeps three quarters), 8 documents in every answer.
    const notes = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(21_750))));
    const entries = Array.from({ length: 8 }, (_, i) => envelope(`n${i}`, { title: 'Boot', notes: notes() }));
    const { documents } = await json<{ documents: Array<{ id: number }> }>(await expectOk(bulk(big, entries)));
    for (const entry of documents) expect((await settled(big, entry.id)).state).toBe('FINISHED');

    // On workers.dev no Cache API: an answer is a HIT only from the isolate's memory.
    const ask = (rows: number) =>
      exports.default.fetch(
        new Request(`https://edge-search.example.workers.dev/api/v1/search/${big.tenant}/${big.code}?q=boot&rows=${rows}`, {
          cf: { clientAcceptEncoding: 'gzip' },
        }),
      );
    // 8 questions with the same 8 documents, ~232,000 characters each: all fit uncompressed.
    const questions = Array.from({ length: 8 }, (_, i) => 8 + i);
    let result: unknown;
    for (const rows of questions) {
      const first = await ask(rows);
      expect(first.headers.get('X-Edge-Cache')).toBe('MISS');
      result = (await json<{ result: unknown }>(first)).result;
    }
    const answerChars = JSON.stringify(result).length;
    expect(questions.length * answerChars).toBeLessThan(2_000_000);
    // Repeated until each goes out as its compressed end: counted with it, they no longer all fit.
    for (const rows of questions) {
      await waitFor(
        () => ask(rows),
        (res) => res.headers.get('Content-Encoding') === 'gzip',
      );
    }
    const compressedBytes = (await compressEnd(answerEnd(JSON.stringify(result)))).deflated.length;
    const fit = Math.floor(2_000_000 / (answerChars + compressedBytes));
    expect(fit).toBeLessThan(questions.length);

    // The most recently repeated are still remembered, the others were let go.
    let hits = 0;
    for (const rows of questions.toReversed()) if ((await ask(rows)).headers.get('X-Edge-Cache') === 'HIT') hits++;
    expect(hits).toBeGreaterThan(0);
    expect(hits).toBeLessThanOrEqual(fit);
  });
});

describe("the search app's memory of repeated answers", () => {
  it('answers the same serialized result for a repeated request of one version, and recomputes after a change', async () => {
    const request = { q: 'shoe', page: 1, rows: 10 };
    const first = await app.searchApp.searchAnswer(request);
    const again = await app.searchApp.searchAnswer({ rows: 10, page: 1, q: 'shoe' });
    expect(again).toEqual(first);
    expect(JSON.parse(first.json).facets[0].id).toBe('brand');

    await feed('p4', 'Yellow shoe', 'Acme');
    const changed = await app.searchApp.searchAnswer(request);
    expect(changed.version).toBeGreaterThan(first.version);
    expect(JSON.parse(changed.json).total).toBe(JSON.parse(first.json).total + 1);
  });

  it("remembers a route's computed answer under the key the worker made, which the object does not make again", async () => {
    const fresh = await json(await get('q=running', { 'Cache-Control': 'no-cache' }));
    // Another question asked under that key is answered from memory: the route's key is the request's canonical form.
    const runningKey = searchKey({ q: 'running', page: 1, rows: 10, filters: {} });
    const remembered = await app.searchApp.searchAnswer({ q: 'yellow', page: 1, rows: 10 }, false, undefined, runningKey);
    expect(JSON.parse(remembered.json)).toEqual(fresh.result);
    const titles = fresh.result.documents.map((hit: { document: { title: string } }) => hit.document.title);
    expect(titles.length).toBeGreaterThan(0);
    expect(titles.every((title: string) => /running/i.test(title) && !/yellow/i.test(title))).toBe(true);

    const suggested = await json(
      await call('GET', `/api/v1/search/suggest/${app.tenant}/${app.code}?q=runn`, { headers: { 'Cache-Control': 'no-cache' } }),
    );
    const outcome = await app.searchApp.stub.suggestAnswer({ q: 'yel', rows: 10 }, false, suggestKey({ q: 'runn', rows: 10 }));
    expect(outcome.ok && JSON.parse(outcome.value.json)).toEqual(suggested.suggestions);
    expect(suggested.suggestions).toMatchObject([{ value: 'running' }]);
  });

  it('answers a document as changed and no more once deleted, though its payload was read for an earlier answer', async () => {
    const fresh = async (q: string) => (await json(await get(`q=${q}`, { 'Cache-Control': 'no-cache' }))).result;
    await feed('p9', 'Purple hiking boot', 'Acme');
    expect((await fresh('hiking')).documents.map((hit: { document: { title: string } }) => hit.document.title)).toEqual([
      'Purple hiking boot',
    ]);

    await feed('p9', 'Purple hiking sandal', 'Acme');
    expect((await fresh('hiking')).documents.map((hit: { document: { title: string } }) => hit.document.title)).toEqual([
      'Purple hiking sandal',
    ]);

    const res = await expectOk(bulk(app, [{ header: { id: 'p9', action: 'delete' } }]));
    const [entry] = (await json<{ documents: Array<{ id: number }> }>(res)).documents;
    expect((await settled(app, entry.id)).state).toBe('FINISHED');
    expect((await fresh('hiking')).total).toBe(0);
  });
});

describe('keys of questions', () => {
  it('are one string per question: keys sorted at every level, tracking fields and undefined values left out', () => {
    const key = searchKey({
      rows: 10,
      q: 'shoe',
      page: 2,
      filters: { size: { filterType: 'range', minValue: 3, maxValue: undefined }, brand: { values: ['b', 'a'], filterType: 'term' } },
      facetLimits: { z: 1, '10': 2, '9': 3, a: 4 },
      sort: undefined,
      requestId: 'r',
      userId: 'u',
    } as SearchRequest);
    expect(key).toBe(
      'search {"facetLimits":{"9":3,"10":2,"a":4,"z":1},"filters":{"brand":{"filterType":"term","values":["b","a"]},' +
        '"size":{"filterType":"range","minValue":3}},"page":2,"q":"shoe","rows":10}',
    );
    expect(searchKey({ q: 'shoe', page: 1, rows: 10 }, { ratio: 0.5, embedder: 'e' })).toBe(
      'search {"hybrid":{"embedder":"e","ratio":0.5},"page":1,"q":"shoe","rows":10}',
    );
  });
});

describe('AnswerMemo', () => {
  it('keeps the most recently used answers of one version within its size, and forgets them all at the next version', () => {
    const memo = new AnswerMemo<string>(40, (json) => json.length);
    memo.set(1, 'a', 'x'.repeat(10));
    memo.set(1, 'b', 'y'.repeat(10));
    memo.set(1, 'c', 'z'.repeat(10));
    expect(memo.get(1, 'a')).toBe('x'.repeat(10)); // now the most recently used
    memo.set(1, 'd', 'w'.repeat(10)); // 40 characters: all fit
    memo.set(1, 'e', 'v'.repeat(10)); // over: the least recently used (b) goes
    expect(memo.get(1, 'b')).toBeUndefined();
    expect(memo.get(1, 'a')).toBeDefined();
    expect(memo.get(1, 'e')).toBeDefined();
    memo.set(1, 'big', 'q'.repeat(11)); // over a quarter of the size: not kept
    expect(memo.get(1, 'big')).toBeUndefined();

    expect(memo.get(2, 'a')).toBeUndefined();
    memo.set(2, 'f', 'u');
    expect(memo.get(2, 'a')).toBeUndefined();
    expect(memo.get(2, 'f')).toBe('u');
  });

  it('adds an answer only where none of its key and version is remembered, keeping the one it has as the most recently used', () => {
    const memo = new AnswerMemo<string>(40, (json) => json.length);
    const first = 'x'.repeat(10);
    expect(memo.add(1, 'a', first)).toBe(true);
    memo.set(1, 'b', 'y'.repeat(10));
    expect(memo.add(1, 'a', 'X'.repeat(10))).toBe(false);
    expect(memo.get(1, 'a')).toBe(first);
    memo.set(1, 'c', 'z'.repeat(10));
    memo.set(1, 'd', 'w'.repeat(10)); // 40 characters: all fit
    memo.set(1, 'e', 'v'.repeat(10)); // over: the least recently used goes, b (a was used by the refused add)
    expect(memo.get(1, 'b')).toBeUndefined();
    expect(memo.get(1, 'a')).toBe(first);
    expect(memo.add(2, 'a', 'v'.repeat(10))).toBe(true); // another version: added
    expect(memo.get(2, 'a')).toBe('v'.repeat(10));
  });

  it('counts an answer that grew anew, letting the least recently used go, and ignores one already let go', () => {
    const memo = new AnswerMemo<string>(100, (json) => json.length);
    for (const key of ['a', 'b', 'c', 'd', 'e']) memo.set(1, key, key.repeat(20)); // 100 characters: all fit
    memo.update('e', 'e'.repeat(20), 'e'.repeat(25)); // 105: the least recently used (a) goes
    expect(memo.get(1, 'a')).toBeUndefined();
    expect(memo.get(1, 'b')).toBe('b'.repeat(20));
    expect(memo.get(1, 'e')).toBe('e'.repeat(25));
    memo.update('a', 'a'.repeat(20), 'a'.repeat(5)); // let go before it grew: not put back
    expect(memo.get(1, 'a')).toBeUndefined();
    memo.update('c', 'stale', 'c'); // no longer what the memo holds
    expect(memo.get(1, 'c')).toBe('c'.repeat(20));
  });
});

describe('the edge cache of a search app deleted and created again', () => {
  it('never answers the new app from the old one’s entries, though its index versions start again', async () => {
    const old = await feedingApp(schema);
    const path = `/api/v1/search/${old.tenant}/${old.code}?q=sandal`;
    await feedInto(old, 'first', 'Old sandal');
    const before = await outcome(await call('GET', path));
    expect(before.body.result.documents.map((d: { id: string }) => d.id)).toEqual(['first']);
    expect((await call('GET', path)).headers.get('X-Edge-Cache')).toBe('HIT');
    const version = await old.searchApp.indexVersion();

    const admin = `/api/v1/admin/searchapps/${old.tenant}/${old.code}`;
    await expectOk(call('DELETE', admin, { token: ADMIN_TOKEN }));
    await expectOk(call('PUT', admin, { token: ADMIN_TOKEN, body: {} }));
    await expectOk(call('PUT', `/api/v1/searchapp/schema/${old.tenant}/${old.code}`, { token: old.admin, body: schema }));
    await feedInto(old, 'second', 'New sandal');
    expect(await old.searchApp.indexVersion()).toBe(version);

    // Once the isolate no longer remembers the deleted app's row (10 s), answers are the new app's.
    const after = await waitFor(
      async () => outcome(await call('GET', path)),
      (seen) => seen.body.result.documents[0]?.id !== 'first',
    );
    expect(after.body.result.documents.map((d: { id: string }) => d.id)).toEqual(['second']);
  });
});

async function feedInto(target: FeedingApp, id: string, title: string) {
  const res = await expectOk(bulk(target, [envelope(id, { title, brand: 'Acme' })]));
  const [entry] = (await json<{ documents: Array<{ id: number }> }>(res)).documents;
  expect((await settled(target, entry.id)).state).toBe('FINISHED');
}
