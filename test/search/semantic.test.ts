import { evictDurableObject, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runSearchTool } from '../../src/agent/grounding';
import { searchKey } from '../../src/search/answers';
import { edgeCacheUrl } from '../../src/search/edge-cache';
import { embedderFingerprint } from '../../src/search/embedding/config';
import { ADMIN_TOKEN, BASE, call, expectOk, json, uniqueCode, waitFor } from '../helpers';
import { allSettled, bulk, edgeCacheApp, envelope, feedingApp, settled, type FeedingApp } from '../feeding/helpers';
import { embeddingsReceived, failEmbeddings, standInBaseUrl } from './stand-in';

const schema = {
  fields: [
    { code: 'name', dataType: 'string', searchMode: 'fuzzy', weight: 5, display: true },
    { code: 'description', dataType: 'string', display: true, semantic: true },
    { code: 'section', dataType: 'string', searchMode: 'exact', facet: true, display: true },
  ],
};

/** Packages whose descriptions the stand-in's concept vectors tell apart (test/search/concept-vectors.ts). */
const packages = [
  ['samba', 'smb and cifs server for a lan', 'net'],
  ['rsync', 'fast incremental files copy', 'net'],
  ['autorepair', 'automobile repair manual', 'doc'],
  ['mpg123', 'mp3 audio player', 'sound'],
  ['vim', 'vi improved, a text editor', 'editors'],
  ['gimp', 'image manipulation program', 'graphics'],
  ['nethack', 'dungeon puzzle game', 'games'],
  ['supertuxkart', 'kart racing game with cars', 'games'],
  ['zip', 'archiver for zip files', 'utils'],
  ['mutt', 'text-based mail client', 'mail'],
].map(([name, description, section]) => envelope(name, { name, description, section }));

interface SemanticApp extends FeedingApp {
  tag: string;
}

/** An app on `schema` whose OpenAI-compatible embedder is the stand-in under a fresh tag, fed with `packages`. */
async function semanticApp(embedder: Record<string, unknown> = {}): Promise<SemanticApp> {
  const app = await feedingApp(schema);
  const tag = uniqueCode('sem');
  await expectOk(
    call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, {
      token: ADMIN_TOKEN,
      body: { embedder: { provider: 'openai', model: 'concepts', baseUrl: standInBaseUrl(tag), ...embedder } },
    }),
  );
  await feed(app, packages);
  return { ...app, tag };
}

async function feed(app: FeedingApp, entries: unknown[]) {
  const states = await allSettled(
    app,
    (await json(await bulk(app, entries))).documents.map((d: { id: number }) => d.id),
  );
  return [...states.values()];
}

async function search(app: FeedingApp, query: string) {
  return call('GET', `/api/v1/search/${app.tenant}/${app.code}?${query}`);
}

async function ids(app: FeedingApp, query: string): Promise<string[]> {
  const res = await search(app, query);
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return (await json(res)).result.documents.map((d: { id: string }) => d.id);
}

/** Provider calls that embedded documents (their texts start with a field code), as opposed to queries. */
async function documentEmbeddingCalls(tag: string) {
  return (await embeddingsReceived(tag)).filter((r) => r.body.input.some((text: string) => text.startsWith('description: ')));
}

const SHARE = encodeURIComponent('share files with windows computers');

describe('semantic and hybrid search', () => {
  it('finds a document sharing no word with the query by vector, and ranks it high in a hybrid search', async () => {
    const app = await semanticApp();
    // One provider call embedded the ten documents of the message.
    expect((await documentEmbeddingCalls(app.tag)).map((r) => r.body.input.length)).toEqual([10]);

    // Keyword search finds only documents with a word of the query ("files", "with").
    const keyword = await ids(app, `q=${SHARE}&semanticRatio=0`);
    expect(keyword).toContain('rsync');
    expect(keyword).not.toContain('samba');
    expect((await ids(app, `q=${SHARE}&semanticRatio=1`))[0]).toBe('samba');
    const hybrid = await json(await search(app, `q=${SHARE}&semanticRatio=0.5&rows=3`));
    expect(hybrid.result.documents.map((d: { id: string }) => d.id)).toContain('samba');
    expect(hybrid.result.semantic).toEqual({ ratio: 0.5 });
    // Without semanticRatio the app's default (0.5) applies; the answer keeps the keyword answer's shape.
    const byDefault = await json(await search(app, `q=${SHARE}&rows=3`));
    expect(byDefault.result).toEqual({ ...hybrid.result, time: expect.any(Number) });
    expect(Object.keys(byDefault.result.documents[0])).toEqual(['id', 'position', 'document', 'highlight']);
    // Highlighting marks the query words found in keyword candidates of a hybrid answer.
    const rsync = byDefault.result.documents.find((d: { id: string }) => d.id === 'rsync');
    expect(rsync.highlight.description).toMatch(/<mark>files<\/mark>/);

    expect(await ids(app, `q=automobile&semanticRatio=1&rows=1`)).toEqual(['autorepair']);
    expect((await ids(app, `q=car&semanticRatio=1&rows=2`)).sort()).toEqual(['autorepair', 'supertuxkart']);
  });

  it('applies filters, facets, sorts and paging to hybrid answers as to keyword answers', async () => {
    const app = await semanticApp();
    const all = await json(await search(app, `q=car&semanticRatio=1&rows=100`));
    expect(all.result.total).toBe(packages.length);
    const sections = all.result.facets.find((f: { id: string }) => f.id === 'section').values;
    expect(sections).toContainEqual({ value: 'games', count: 2 });

    // A vector neighbour failing the filter never shows; the nearest passing ones do.
    const games = await json(await search(app, `q=car&semanticRatio=1&f.section=games`));
    expect(games.result.documents.map((d: { id: string }) => d.id)).toEqual(['supertuxkart', 'nethack']);
    expect(games.result.total).toBe(2);
    const notDoc = await json(
      await call('POST', `/api/v1/search/${app.tenant}/${app.code}`, {
        body: {
          q: 'automobile',
          hybrid: { semanticRatio: 0.5 },
          rows: 3,
          filters: { section: { filterType: 'term', filterOperator: 'not', values: ['doc'] } },
        },
      }),
    );
    expect(notDoc.result.documents.map((d: { id: string }) => d.id)).not.toContain('autorepair');
    expect(notDoc.result.total).toBe(packages.length - 1);

    // Paging walks the same fused order.
    const pages = await Promise.all([1, 2, 3].map((page) => ids(app, `q=car&semanticRatio=0.7&rows=4&page=${page}`)));
    expect(pages.flat()).toEqual(await ids(app, `q=car&semanticRatio=0.7&rows=12`));
    expect(pages[0][0]).toBe('supertuxkart');
  });

  it('keeps vectors through a snapshot, an eviction and a restart: no document is embedded again', async () => {
    const app = await semanticApp();
    const before = await ids(app, `q=${SHARE}&semanticRatio=1`);
    const calls = (await documentEmbeddingCalls(app.tag)).length;

    await evictDurableObject(app.searchApp.stub); // no snapshot yet: the index is rebuilt from stored documents and vectors
    expect(await ids(app, `q=${SHARE}&semanticRatio=1`)).toEqual(before);
    await runDurableObjectAlarm(app.searchApp.stub);
    await evictDurableObject(app.searchApp.stub); // loaded from the snapshot
    expect(await ids(app, `q=${SHARE}&semanticRatio=1`)).toEqual(before);

    // A change after the snapshot is replayed with its vector.
    await feed(app, [envelope('smbclient', { name: 'smbclient', description: 'windows shares client', section: 'net' })]);
    await evictDurableObject(app.searchApp.stub);
    expect((await ids(app, `q=${SHARE}&semanticRatio=1&rows=2`)).sort()).toEqual(['samba', 'smbclient']);
    expect((await documentEmbeddingCalls(app.tag)).length).toBe(calls + 1);
  });

  it('makes no provider call for an unchanged re-feed or a re-index, and re-embeds when the embedder changes', async () => {
    const app = await semanticApp();
    const calls = (await documentEmbeddingCalls(app.tag)).length;
    expect(await feed(app, packages)).toEqual(packages.map(() => 'FINISHED'));
    expect((await documentEmbeddingCalls(app.tag)).length).toBe(calls);

    const reindex = async () => {
      const { jobId } = await json(
        await call('PUT', `/api/v1/job/${app.tenant}/${app.code}/feeding/_schedule`, { token: app.feed, body: {} }),
      );
      return waitFor(
        async () => json(await call('GET', `/api/v1/job/${app.tenant}/${app.code}/${jobId}`, { token: app.feed })),
        (job) => job.state === 'FINISHED' || job.state === 'ERROR',
      );
    };
    expect(await reindex()).toMatchObject({ state: 'FINISHED', processed: packages.length });
    expect((await documentEmbeddingCalls(app.tag)).length).toBe(calls);

    // Another model is another vector space: the re-index embeds every document once more, through the new endpoint.
    const tag = uniqueCode('sem');
    await expectOk(
      call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, {
        token: ADMIN_TOKEN,
        body: { embedder: { provider: 'openai', model: 'concepts-2', baseUrl: standInBaseUrl(tag) } },
      }),
    );
    expect(await reindex()).toMatchObject({ state: 'FINISHED' });
    const reembedded = await documentEmbeddingCalls(tag);
    expect(reembedded.flatMap((r) => r.body.input)).toHaveLength(packages.length);
    expect(reembedded[0].body.model).toBe('concepts-2');
    expect((await documentEmbeddingCalls(app.tag)).length).toBe(calls);
  });

  it('embeds the documents of all queue messages of a batch together, in one provider call', async () => {
    const app = await semanticApp();
    const calls = (await documentEmbeddingCalls(app.tag)).length;
    // 25 KB each: the bulk's 8 documents go in two queue messages (at most 110 KB each), sent and consumed as one batch.
    const padding = ' lorem'.repeat(4000);
    const big = Array.from({ length: 8 }, (_, i) =>
      envelope(`big${i}`, { name: `big${i}`, description: `archive number ${i} for cars${padding}`, section: 'big' }),
    );
    expect(await feed(app, big)).toEqual(big.map(() => 'FINISHED'));
    const received = (await documentEmbeddingCalls(app.tag)).slice(calls);
    expect(received.map((r) => r.body.input.length)).toEqual([8]);
    expect(await ids(app, 'q=automobile&semanticRatio=1&rows=3&f.section=big')).toHaveLength(3);
  });

  it('ends only the entries whose text the failing provider could not embed ERROR; the others apply', async () => {
    const app = await semanticApp();
    await failEmbeddings(app.tag, 10, 500);
    const states = await feed(app, [
      envelope('samba', { name: 'samba', description: 'dog grooming guide', section: 'pets' }),
      envelope('vim', { name: 'vim', description: 'vi improved, a text editor', section: 'editors-2' }), // same semantic text
      { header: { id: 'zip', action: 'delete' } },
    ]);
    await failEmbeddings(app.tag, 0);
    expect(states).toEqual(['ERROR', 'FINISHED', 'FINISHED']);
    expect(await ids(app, 'q=zip&semanticRatio=0')).toEqual([]);
    expect((await json(await search(app, 'q=vim&semanticRatio=0'))).result.documents[0].document.section).toBe('editors-2');
    expect((await json(await search(app, 'q=samba&semanticRatio=0'))).result.documents[0].document.section).toBe('net');
  });

  it('retries a failing provider, then ends the entries ERROR with its reason and leaves the live index alone', async () => {
    const app = await semanticApp();
    const calls = (await embeddingsReceived(app.tag)).length;
    await failEmbeddings(app.tag, 10, 500);
    const res = await bulk(app, [envelope('samba', { name: 'samba', description: 'dog grooming guide', section: 'pets' })]);
    const entry = await settled(app, (await json(res)).documents[0].id);
    expect(entry).toMatchObject({ state: 'ERROR', error: expect.stringMatching(/^embedding failed: embedding provider answered 500/) });
    expect((await embeddingsReceived(app.tag)).length).toBe(calls + 4);
    await failEmbeddings(app.tag, 0);

    // The old samba is still live, with its old vector and fields.
    const found = await json(await search(app, `q=${SHARE}&semanticRatio=1&rows=1`));
    expect(found.result.documents[0]).toMatchObject({ id: 'samba', document: { section: 'net' } });
    expect(await ids(app, 'q=grooming&semanticRatio=0')).toEqual([]);
  });

  it('answers keyword results with a flag when the provider fails at query time', async () => {
    const app = await semanticApp();
    await failEmbeddings(app.tag, 2, 503);
    const res = await search(app, `q=${encodeURIComponent('fast files copy')}&semanticRatio=0.5`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.result.documents.map((d: { id: string }) => d.id)).toEqual(['rsync', 'zip']);
    expect(body.result.semantic).toEqual({
      ratio: 0,
      fallback: expect.stringMatching(/^embedding failed: embedding provider answered 503/),
    });
  });

  it('answers a repeated hybrid GET from the edge cache without asking the provider; a fallback answer is never cached', async () => {
    const app = await semanticApp();
    const query = `q=${encodeURIComponent('music for the car')}&rows=3`;
    const first = await search(app, query); // the app's default ratio, 0.5
    expect(first.headers.get('X-Edge-Cache')).toBe('MISS');
    const { result } = await json(first);
    expect(result.semantic).toEqual({ ratio: 0.5 });
    const calls = (await embeddingsReceived(app.tag)).length;

    await failEmbeddings(app.tag, 10, 500); // a provider call would now fail
    for (const repeat of [`rows=3&${query}&requestId=r1`, `${query}&semanticRatio=0.5`]) {
      const again = await search(app, repeat);
      expect(again.headers.get('X-Edge-Cache')).toBe('HIT');
      expect((await json(again)).result).toEqual(result);
    }
    expect((await embeddingsReceived(app.tag)).length).toBe(calls);
    // The Cache API holds it under the hybrid key (request, ratio, embedder) and the index version.
    const embedder = embedderFingerprint({ provider: 'openai', model: 'concepts', baseUrl: standInBaseUrl(app.tag) });
    const key = searchKey({ q: 'music for the car', page: 1, rows: 3, filters: {} }, { ratio: 0.5, embedder });
    const url = edgeCacheUrl(BASE, await edgeCacheApp(app), await app.searchApp.indexVersion(), key);
    const stored = await waitFor(
      () => caches.default.match(url),
      (entry) => entry !== undefined,
    );
    expect(JSON.parse((await stored?.text()) ?? 'null')).toEqual(result);
    // Another ratio is another answer; its query vector comes from the isolate's cache of query embeddings.
    const pure = await search(app, `${query}&semanticRatio=1`);
    expect(pure.headers.get('X-Edge-Cache')).toBe('MISS');
    expect((await json(pure)).result.semantic).toEqual({ ratio: 1 });
    expect((await embeddingsReceived(app.tag)).length).toBe(calls);

    // A new query while the provider fails: keyword results, flagged, not cached; once it recovers, the hybrid answer.
    const other = `q=${encodeURIComponent('fast files copy')}`;
    const fallback = await search(app, other);
    expect(fallback.headers.get('X-Edge-Cache')).toBe('BYPASS');
    expect((await json(fallback)).result.semantic).toMatchObject({ ratio: 0, fallback: expect.stringMatching(/^embedding failed/) });
    await failEmbeddings(app.tag, 0);
    const recovered = await search(app, other);
    expect(recovered.headers.get('X-Edge-Cache')).toBe('MISS');
    expect((await json(recovered)).result.semantic).toEqual({ ratio: 0.5 });
  });

  it('validates semanticRatio, and refuses it above 0 on an app without an embedder or semantic fields', async () => {
    const app = await semanticApp();
    for (const value of ['2', '-0.1', 'abc']) {
      const res = await search(app, `q=car&semanticRatio=${value}`);
      expect(res.status).toBe(400);
      expect((await json(res)).details.map((d: { path: string }) => d.path)).toEqual(['semanticRatio']);
    }
    const post = await call('POST', `/api/v1/search/${app.tenant}/${app.code}`, { body: { q: 'car', hybrid: { semanticRatio: 1.5 } } });
    expect((await json(post)).details.map((d: { path: string }) => d.path)).toEqual(['hybrid.semanticRatio']);

    const plain = await feedingApp(schema);
    const refused = await call('POST', `/api/v1/search/${plain.tenant}/${plain.code}`, {
      body: { q: 'car', hybrid: { semanticRatio: 0.5 } },
    });
    expect(refused.status).toBe(400);
    expect((await json(refused)).details).toEqual([
      { path: 'hybrid.semanticRatio', message: expect.stringMatching(/needs an embedder and semantic fields/) },
    ]);
    expect((await search(plain, 'q=car&semanticRatio=0')).status).toBe(200);
    const keywordOnly = await json(await search(plain, 'q=car'));
    expect(keywordOnly.result.semantic).toBeUndefined();
  });

  it('embeds through the Workers AI binding', async () => {
    const app = await feedingApp(schema);
    const model = `@cf/baai/bge-small-en-v1.5`;
    await expectOk(
      call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, {
        token: ADMIN_TOKEN,
        body: { embedder: { provider: 'workers-ai', model } },
      }),
    );
    const marker = uniqueCode('doc');
    expect(await feed(app, [...packages, envelope(marker, { name: marker, description: 'puppy training', section: 'pets' })])).toEqual(
      [...packages, 0].map(() => 'FINISHED'),
    );
    const received = (await embeddingsReceived('workers-ai')).filter((r) => r.body.input.some((t: string) => t.includes('puppy')));
    expect(received).toHaveLength(1);
    expect(received[0].body.model).toBe(model);
    expect(await ids(app, 'q=dogs&semanticRatio=1&rows=1')).toEqual([marker]);
  });

  it('lets the agent search tool use the app default ratio', async () => {
    const app = await semanticApp();
    const answer = JSON.parse(
      await runSearchTool(env, app.tenant, app.code, JSON.stringify({ q: 'share files with windows computers', rows: 3 })),
    );
    expect(answer.documents.map((d: { id: string }) => d.id)).toContain('samba');
  });
});
