import {
  createExecutionContext,
  createMessageBatch,
  evictDurableObject,
  getQueueResult,
  listDurableObjectIds,
  runDurableObjectAlarm,
  runInDurableObject,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SearchRequest } from '../../src/search/engine/types';
import { SearchAppClient } from '../../src/search/search-app-client';
import { MAX_SHARDS, objectId, shardName, shardNumbers, shardOf } from '../../src/search/shards';
import { prepareSwap, type SwappingShards } from '../../src/search/shard-swap';
import { createDb } from '../../src/db/client';
import { findSearchApp } from '../../src/db/queries';
import { indexConfigOf } from '../../src/feeding/operations';
import { DECIDED_MOVE_COMMIT_MS, RESHARD_LEASE_MS, VOTED_MOVE_DECIDE_MS } from '../../src/search/app-storage';
import type { Env } from '../../src/env';
import type { FeedingMessage } from '../../src/feeding/operations';
import worker from '../../src/index';
import type { FeedOperation } from '../../src/search/app-object/feeding';
import { allSettled, bulk, debianEnvelopes, debianSchema, fullFeed, runRecoveryCheck, type FeedingApp } from '../feeding/helpers';
import { ADMIN_TOKEN, call, createTenantWithApp, createToken, expectOk, json, objectCallsThrough, uniqueCode, waitFor } from '../helpers';
import { TYPO_MATCHES, TYPO_WORD, typoNeighbours } from '../fixtures/typo-neighbours';
import { standInBaseUrl } from './stand-in';

const DOCUMENTS = debianEnvelopes.slice(0, 300);
const MOVING = { retry: 'documents are moving to a new shard count: retry' };

/** A Debian-schema app with `shards` shards, its documents fed by a full feed (whose swap takes the setting). */
async function shardedApp(shards: number, tenant?: string, schema: unknown = debianSchema): Promise<FeedingApp> {
  const created = tenant ? await createTenant(tenant) : await createTenantWithApp('shards');
  await expectOk(call('PUT', `/api/v1/admin/searchapps/${created.tenant}/${created.code}`, { token: ADMIN_TOKEN, body: { shards } }));
  const admin = (await createToken(created.tenant, 'admin')).token;
  const feed = (await createToken(created.tenant, 'feeding')).token;
  await expectOk(call('PUT', `/api/v1/searchapp/schema/${created.tenant}/${created.code}`, { token: admin, body: schema }));
  return { ...created, admin, feed, searchApp: new SearchAppClient(env, created.tenant, created.code) };
}

async function createTenant(tenant: string) {
  await expectOk(call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: { name: tenant } }));
  await expectOk(call('PUT', `/api/v1/admin/searchapps/${tenant}/catalog`, { token: ADMIN_TOKEN, body: {} }));
  return { tenant, code: 'catalog' };
}

/** Feeds entries in one full-feed cycle and waits for its swap (or its failure). */
async function feedFully(app: FeedingApp, entries: unknown[]): Promise<{ state: string }> {
  await expectOk(fullFeed(app, 'start'));
  const accepted = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, entries)));
  const ids = Array.from({ length: accepted.lastId - accepted.firstId + 1 }, (_, i) => accepted.firstId + i);
  await allSettled(app, ids, { staged: true });
  await expectOk(fullFeed(app, 'end'));
  return waitFor(
    async () => json<{ state: string }>(await call('GET', `/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, { token: app.feed })),
    (status) => status.state !== 'ACTIVE' && status.state !== 'ENDING',
  );
}

/**
 * A full feed into the app's shards (`shards` of them, set first when given) whose cancel reached shard 0 only, as when
 * the process cancelling it died right after: the other shards still hold the cycle and its staged rows. Answers its id.
 */
async function feedCancelledOnShardZero(app: FeedingApp, shards?: number): Promise<number> {
  if (shards !== undefined) {
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards } }));
  }
  const { cycleId } = await json<{ cycleId: number }>(await expectOk(fullFeed(app, 'start')));
  const accepted = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, DOCUMENTS.slice(40, 100))));
  await allSettled(app, [accepted.firstId, accepted.lastId], { staged: true });
  await app.searchApp.stub.cancelFullFeed();
  return cycleId;
}

/** The tables a shard object's SQLite database holds (none once its storage was deleted, until it is used again). */
async function tables(app: FeedingApp, shard: number): Promise<string[]> {
  return runInDurableObject(app.searchApp.shard(shard), async (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
      .toArray()
      .map((row) => row.name),
  );
}

/** Rows a shard object stores in these tables (by default documents, tombstones too, staged documents and metadata). */
async function storedRows(app: FeedingApp, shard: number, counted = ['documents', 'staged', 'meta']): Promise<number> {
  // Tables and counts read in one call: a recovery check running meanwhile may delete the object's storage between two.
  return runInDurableObject(app.searchApp.shard(shard), async (_instance, state) => {
    const sqlite = state.storage.sql;
    const held = sqlite
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((row) => row.name);
    return counted
      .filter((table) => held.includes(table))
      .map((table) => sqlite.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n)
      .reduce((a, b) => a + b, 0);
  });
}

/** Staged document rows a shard stores, of any cycle or move. */
async function stagedRows(app: FeedingApp, shard: number): Promise<number> {
  return storedRows(app, shard, ['staged']);
}

/** Chunks of the other shards' statistics a shard stores (none: it scores alone). */
async function othersChunks(app: FeedingApp, shard: number): Promise<number> {
  return runInDurableObject(
    app.searchApp.shard(shard),
    async (_instance, state) => state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM others_chunks').one().n,
  );
}

const requests: Array<SearchRequest & { name: string }> = [
  { name: 'browse, page 1', page: 1, rows: 20 },
  { name: 'browse, page 3', page: 3, rows: 7 },
  { name: 'sorted by name', page: 1, rows: 15, sort: 'name_desc' },
  {
    name: 'sorted, filtered, page 2',
    page: 2,
    rows: 10,
    sort: 'name_asc',
    filters: { section: { filterType: 'term', values: ['libs', 'utils'] } },
  },
  { name: 'disjunctive facets', page: 1, rows: 10, facetLimit: 5, filters: { section: { filterType: 'term', values: ['doc'] } } },
  { name: 'a limit per facet', page: 1, rows: 5, facetLimit: 3, facetLimits: { section: 7, installedSize: 0 } },
  { name: 'a menu opened at a path', page: 1, rows: 5, facetLimit: 4, facets: ['tags'], facetPaths: { tags: 'devel' } },
  { name: 'a menu opened at a path, every value', page: 1, rows: 5, facetLimit: 100, facets: ['tags'], facetPaths: { tags: 'role' } },
];

/**
 * Queries whose top 10 differ when each shard scores with its own BM25 figures and name families (lib- and python3-
 * families spread over the shards), or (`c`, `li`, `lib`, `p`) keeps its own 64 most frequent completions of a prefix
 * that has more in the whole index.
 */
const RANKED_APART_BY_SHARD = [
  'python3',
  'pyt',
  'elpa',
  'ada',
  'apertium',
  'gir1.2',
  'libatk1.0',
  'binutils',
  'libboost',
  'ceph',
  'c',
  'li',
  'lib',
  'p',
];

describe('a search app over several shards', () => {
  let one: FeedingApp;
  let four: FeedingApp;
  beforeAll(async () => {
    [one, four] = await Promise.all([shardedApp(1), shardedApp(4)]);
    await feedFully(one, DOCUMENTS);
    await feedFully(four, DOCUMENTS);
  }, 120_000);

  it('spreads the documents over its shards by the hash of their ids', async () => {
    const perShard = await Promise.all([0, 1, 2, 3].map((shard) => four.searchApp.shard(shard).stats()));
    expect(perShard.map((stats) => stats.documents).reduce((a, b) => a + b)).toBe(DOCUMENTS.length);
    for (const stats of perShard) expect(stats.documents).toBeGreaterThan(30);
    const holder = shardOf(DOCUMENTS[0].header.id, 4);
    expect(await four.searchApp.shard(holder).document(DOCUMENTS[0].header.id)).toMatchObject({ name: DOCUMENTS[0].payload.name });
    expect(await four.searchApp.document(DOCUMENTS[0].header.id)).toMatchObject({ name: DOCUMENTS[0].payload.name });
    expect((await one.searchApp.stats()).documents).toBe(DOCUMENTS.length);
  });

  it.each(requests)('answers $name as one shard does: ids, order, stats, total', async ({ name: _, ...request }) => {
    const [single, sharded] = await Promise.all([one.searchApp.search(request), four.searchApp.search(request)]);
    expect(sharded.total).toBe(single.total);
    expect(sharded.documents).toEqual(single.documents);
    expect(Object.keys(sharded.facetStats)).toEqual(Object.keys(single.facetStats));
    for (const [id, stats] of Object.entries(single.facetStats)) {
      expect(sharded.facetStats[id].min).toBe(stats.min);
      expect(sharded.facetStats[id].max).toBe(stats.max);
      expect(sharded.facetStats[id].sum).toBeCloseTo(stats.sum, 6);
      expect(sharded.facetStats[id].avg).toBeCloseTo(stats.avg, 6);
    }
    expect(sharded.paging).toEqual(single.paging);
  });

  it.each(requests)('answers $name with facet counts exact, or flagged and never above the true ones', async ({ name: _, ...request }) => {
    const [single, sharded] = await Promise.all([one.searchApp.search(request), four.searchApp.search(request)]);
    expect(sharded.facets.map((facet) => facet.id)).toEqual(single.facets.map((facet) => facet.id));
    if (sharded.exhaustiveFacetsCount === undefined) return expect(sharded.facets).toEqual(single.facets);
    const every = await one.searchApp.search({ ...request, facetLimit: 1000 });
    for (const facet of sharded.facets) {
      const truth = new Map(every.facets.find((f) => f.id === facet.id)?.values.map((v) => [v.value, v.count]));
      for (const { value, count } of facet.values) expect(count).toBeLessThanOrEqual(truth.get(value) ?? 0);
    }
  });

  it.each([...RANKED_APART_BY_SHARD, 'gnome s'])(
    'ranks %s as one shard does: the whole index statistics are handed to every shard at the swap',
    async (q) => {
      const request = { q, page: 1, rows: 10, attributesToHighlight: ['name'] };
      const [single, sharded] = await Promise.all([one.searchApp.search(request), four.searchApp.search(request)]);
      expect(single.total).toBeGreaterThan(1);
      expect(sharded.total).toBe(single.total);
      expect(sharded.documents).toEqual(single.documents);
    },
  );

  it('keeps the whole index statistics through a cold start of a shard', async () => {
    const request = { q: 'python3', page: 1, rows: 10 };
    for (const shard of [0, 1, 2, 3]) await evictDurableObject(four.searchApp.shard(shard));
    expect((await four.searchApp.search(request)).documents).toEqual((await one.searchApp.search(request)).documents);
  });

  it('caps the facet values each shard returns, and says when counts may then be low', async () => {
    // Tags: hundreds of values per shard, more than the 1.5 × 3 + 10 each returns.
    const capped = { page: 1, rows: 5, facetLimit: 3, facets: ['tags'] };
    const [single, sharded] = await Promise.all([one.searchApp.search(capped), four.searchApp.search(capped)]);
    expect(single.exhaustiveFacetsCount).toBeUndefined();
    expect(sharded.exhaustiveFacetsCount).toBe(false);
    expect(sharded.facets[0].values).toHaveLength(3);
    // Sections: fewer values than every shard may return, so the sums are exact and the answer says nothing.
    const whole = { page: 1, rows: 5, facetLimit: 40, facets: ['section'] };
    const [a, b] = await Promise.all([one.searchApp.search(whole), four.searchApp.search(whole)]);
    expect(b.exhaustiveFacetsCount).toBeUndefined();
    expect(b.facets).toEqual(a.facets);
  });

  it('merges suggestions and answers the public routes alike', async () => {
    const [single, sharded] = await Promise.all([
      one.searchApp.suggest({ q: 'lib', rows: 8 }),
      four.searchApp.suggest({ q: 'lib', rows: 8 }),
    ]);
    expect(sharded).toEqual(single);
    const path = (app: FeedingApp) => `/api/v1/search/${app.tenant}/${app.code}?rows=5&sort=name_asc&f.section=libs`;
    const [a, b] = await Promise.all([call('GET', path(one)), call('GET', path(four))]);
    const [ra, rb] = [
      (await json<{ result: { documents: unknown[]; facets: unknown[] } }>(a)).result,
      (await json<{ result: { documents: unknown[]; facets: unknown[] } }>(b)).result,
    ];
    expect(rb.documents).toEqual(ra.documents);
    expect(rb.facets).toEqual(ra.facets);
  });

  it('routes live feeding to the document shard and answers the change', async () => {
    const id = DOCUMENTS[5].header.id;
    const accepted = await json<{ firstId: number }>(
      await expectOk(
        bulk(four, [{ header: { id, action: 'update' }, payload: { ...DOCUMENTS[5].payload, description: 'a zyxwvut marker' } }]),
      ),
    );
    await allSettled(four, [accepted.firstId]);
    expect(await four.searchApp.shard(shardOf(id, 4)).document(id)).toMatchObject({ description: 'a zyxwvut marker' });
    const found = await four.searchApp.search({ q: 'zyxwvut', page: 1, rows: 5 });
    expect(found.documents.map((d) => d.id)).toEqual([id]);
  });
});

/**
 * Documents whose words are spread unevenly over the shards, so a shard's own BM25 statistics would rank differently
 * from the whole index's.
 */
function unevenCatalogue(): Array<{ header: { id: string; action: 'update' }; payload: Record<string, unknown> }> {
  const syllables = ['ka', 'lo', 'mi', 'nu', 'pe', 'ra', 'si', 'to', 'vu', 'ze'];
  const name = (i: number) => syllables[i % 10] + syllables[Math.floor(i / 10) % 10] + syllables[Math.floor(i / 100) % 10];
  const colors = ['red', 'blue', 'green', 'black'];
  const words = ['lamp', 'chair', 'wood', 'steel', 'table', 'soft', 'light', 'modern', 'classic', 'desk', 'shelf', 'oak'];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: 240 }, (_, i) => {
    const length = 2 + Math.floor(random() * 12);
    // Skewed: low word indexes far more frequent, and more so for the first ids (which land on various shards).
    const description = Array.from({ length }, () => words[Math.floor(random() ** (i < 120 ? 2 : 1) * words.length)]).join(' ');
    return {
      header: { id: `doc-${i}`, action: 'update' as const },
      payload: { title: `${name(i)} ${colors[i % 4]}`, description, color: colors[i % 4] },
    };
  });
}

const unevenSchema = {
  fields: [
    { code: 'title', dataType: 'string', searchMode: 'fuzzy', weight: 5, display: true, sort: true },
    { code: 'description', dataType: 'string', searchMode: 'balanced', weight: 2, display: true },
    { code: 'color', dataType: 'string', searchMode: 'exact', display: true, facet: true },
  ],
};

describe('keyword relevance over several shards', () => {
  let one: FeedingApp;
  let four: FeedingApp;
  beforeAll(async () => {
    [one, four] = await Promise.all([shardedApp(1, undefined, unevenSchema), shardedApp(4, undefined, unevenSchema)]);
    await feedFully(one, unevenCatalogue());
    await feedFully(four, unevenCatalogue());
  }, 120_000);

  it.each(['lamp', 'oak shelf', 'modern desk light', 'wo', 'lolokka', 'red lamp', 'kalo'])(
    "ranks %s as one shard does, the whole index's BM25 statistics handed to every shard at the swap",
    async (q) => {
      const request = { q, page: 1, rows: 10, attributesToHighlight: ['*'] };
      const [single, sharded] = await Promise.all([one.searchApp.search(request), four.searchApp.search(request)]);
      expect(single.total).toBeGreaterThan(0);
      expect(sharded.total).toBe(single.total);
      expect(sharded.documents).toEqual(single.documents);
      expect(sharded.facets).toEqual(single.facets);
      const page2 = { ...request, page: 2 };
      expect((await four.searchApp.search(page2)).documents).toEqual((await one.searchApp.search(page2)).documents);
    },
  );
});

describe('statistics exchanged while feeding', () => {
  const QUERIES = ['python3', 'lib', 'perl', 'gnome', 'data', 'ada', 'font', 'tool'];

  /** Live updates of `envelopes`, with operation ids after any the full feed used. */
  const operations = (envelopes: typeof debianEnvelopes, firstId: number): FeedOperation[] =>
    envelopes.map(({ header, payload }, i) => ({ opId: firstId + i, documentId: header.id, operation: 'update', payload }));

  /** The queries whose top 10 differ between the two apps. */
  async function differing(one: FeedingApp, two: FeedingApp): Promise<string[]> {
    const found = await Promise.all(
      QUERIES.map(async (q) => {
        const request = { q, page: 1, rows: 10 };
        const [a, b] = await Promise.all([one.searchApp.search(request), two.searchApp.search(request)]);
        return JSON.stringify(a.documents.map((d) => d.id)) === JSON.stringify(b.documents.map((d) => d.id)) ? [] : [q];
      }),
    );
    return found.flat();
  }

  it('a batch leaving a shard changed by 256 documents or more hands every shard the whole index statistics again', async () => {
    const [one, two] = await Promise.all([shardedApp(1), shardedApp(2)]);
    await feedFully(one, DOCUMENTS.slice(0, 40));
    await feedFully(two, DOCUMENTS.slice(0, 40));
    const apply = async (ops: FeedOperation[]) =>
      Promise.all(
        [one, two].map(async (app) => {
          const row = await findSearchApp(createDb(env.DB), app.tenant, app.code);
          return app.searchApp.apply(ops, indexConfigOf(row!));
        }),
      );
    // About 150 changes per shard: each counts its own at once, the other's not yet, so rankings differ.
    await apply(operations(debianEnvelopes.slice(300, 600), 1_000_000));
    expect(await differing(one, two)).not.toEqual([]);
    // About 300 per shard since the last exchange: the batch ends with one, and the shards rank as one index.
    await apply(operations(debianEnvelopes.slice(600, 900), 2_000_000));
    expect(await differing(one, two)).toEqual([]);
    expect((await two.searchApp.search({ page: 1, rows: 1 })).total).toBe(640);
  });
});

/** The Debian schema with the descriptions embedded (by the stand-in's concept vectors). */
const semanticSchema = {
  ...debianSchema,
  fields: debianSchema.fields.map((field) => (field.code === 'description' ? { ...field, semantic: true } : field)),
};

/** An app of `semanticSchema` with 1 shard and one with 4, both embedding with the stand-in, fed `entries` by a full feed. */
async function semanticApps(entries: unknown[]): Promise<FeedingApp[]> {
  const apps = await Promise.all([shardedApp(1, undefined, semanticSchema), shardedApp(4, undefined, semanticSchema)]);
  const embedder = { provider: 'openai', model: 'concepts', baseUrl: standInBaseUrl(uniqueCode('shards')) };
  for (const app of apps) {
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { embedder } }));
    await feedFully(app, entries);
  }
  return apps;
}

describe('hybrid search over several shards', () => {
  // 200 documents, so vector search is exact in one index as in each shard and every difference would come from the merge.
  let one: FeedingApp;
  let four: FeedingApp;
  beforeAll(async () => {
    [one, four] = await semanticApps(DOCUMENTS.slice(0, 200));
  }, 120_000);

  const search = async (app: FeedingApp, query: string) => {
    const res = await expectOk(call('GET', `/api/v1/search/${app.tenant}/${app.code}?${query}`));
    return (await json<{ result: { documents: unknown[]; semantic?: { ratio: number } } }>(res)).result;
  };

  it.each(['music player', 'photo editor', 'compress files', 'web browser', 'game'])(
    "ranks %s as one shard does: every shard fuses with the whole index's normalization",
    async (q) => {
      for (const extra of ['', '&page=2&rows=6', '&sort=name_asc', '&f.section=libs&f.section=utils']) {
        const query = `q=${encodeURIComponent(q)}&semanticRatio=0.6&attributesToHighlight=name${extra}`;
        const [single, sharded] = await Promise.all([search(one, query), search(four, query)]);
        expect(single.semantic).toEqual({ ratio: 0.6 });
        expect(single.documents.length).toBeGreaterThan(0);
        expect(sharded.documents, `${q}${extra}`).toEqual(single.documents);
      }
    },
  );
});

describe('typo expansions over several shards', () => {
  // A word 100 indexed words are one typo away from: one index keeps the 64 most frequent, each of 4 shards holds
  // fewer and would keep all its own. Embedded descriptions, for the hybrid path's first round too.
  let one: FeedingApp;
  let four: FeedingApp;
  beforeAll(async () => {
    [one, four] = await semanticApps(typoNeighbours());
  }, 120_000);

  it("keeps the typo expansions one index keeps: the shards that kept more answer again with the whole index's last", async () => {
    for (const request of [
      { q: TYPO_WORD, page: 1, rows: 10, facetLimit: 10 },
      { q: TYPO_WORD, page: 3, rows: 15, filters: { section: { filterType: 'term' as const, values: ['libs', 'games'] } } },
      { q: `${TYPO_WORD} player`, page: 1, rows: 10, sort: 'name_asc' },
    ]) {
      const [single, sharded] = await Promise.all([one.searchApp.search(request), four.searchApp.search(request)]);
      expect(sharded.total, request.q).toBe(single.total);
      expect(sharded.documents, request.q).toEqual(single.documents);
      expect(sharded.facets, request.q).toEqual(single.facets);
    }
    expect((await one.searchApp.search({ q: TYPO_WORD, page: 1, rows: 1 })).total).toBe(TYPO_MATCHES);
  });

  it('a hybrid search normalizes and fuses with the cut expansions too', async () => {
    const query = `q=${TYPO_WORD}&semanticRatio=0.4&rows=20`;
    const search = async (app: FeedingApp) =>
      (
        await json<{ result: { total: number; documents: unknown[] } }>(
          await expectOk(call('GET', `/api/v1/search/${app.tenant}/${app.code}?${query}`)),
        )
      ).result;
    const [single, sharded] = await Promise.all([search(one), search(four)]);
    expect(single.total).toBeLessThan(typoNeighbours().length);
    expect(sharded).toMatchObject({ total: single.total, documents: single.documents });
  });
});

describe('a full feed over several shards', () => {
  it('a shard refusing the swap leaves the old index live on every shard', async () => {
    const app = await shardedApp(4, 'swap-refusal');
    // The first full feed to 4 shards: shard 2 refuses (TEST_REFUSE_SWAP), so the app keeps its one empty shard.
    expect((await feedFully(app, DOCUMENTS.slice(0, 40))).state).toBe('FAILED');
    const status = await json<{ lastFailed?: { reason: string } }>(
      await call('GET', `/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, { token: app.feed }),
    );
    expect(JSON.stringify(status)).toContain(`${shardName(app.tenant, app.code, 2)} refuses swaps`);
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 1, generation: 0 });
    expect((await app.searchApp.search({ page: 1, rows: 5 })).total).toBe(0);
    for (const shard of [0, 1, 2, 3]) expect((await app.searchApp.shard(shard).fullFeedStatus()).stagedDocuments).toBe(0);
  });

  it('cancel discards what every shard staged', async () => {
    const app = await shardedApp(3);
    await feedFully(app, DOCUMENTS.slice(0, 30));
    await expectOk(fullFeed(app, 'start'));
    const accepted = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, DOCUMENTS.slice(30, 60))));
    await allSettled(app, [accepted.firstId, accepted.lastId], { staged: true });
    await expectOk(fullFeed(app, 'cancel'));
    for (const shard of [0, 1, 2]) expect((await app.searchApp.shard(shard).fullFeedStatus()).stagedDocuments).toBe(0);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(30);
  });

  it('a swap destroys a dropped shard holding a cycle whose end never reached it, and never one a newer cycle took up', async () => {
    const app = await shardedApp(4);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    // A full feed into the 4 shards, cancelled by a process that died after shard 0's cancel: shards 1 to 3 never heard.
    const cycleId = await feedCancelledOnShardZero(app);
    for (const shard of [1, 2, 3]) expect(await stagedRows(app, shard), `shard ${shard}`).toBeGreaterThan(0);

    // The next full feed swaps to 2 shards: 2 and 3 are dropped, and 1 joined it over the ended cycle.
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 2 } }));
    expect((await feedFully(app, DOCUMENTS.slice(0, 30))).state).toBe('NONE');
    for (const shard of [2, 3]) expect(await storedRows(app, shard), `dropped shard ${shard}`).toBe(0);
    expect(await stagedRows(app, 1)).toBe(0);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(30);

    // A follow-up that read shard 0's cycles before a newer full feed took shard 3 up leaves shard 3 alone.
    const before = await app.searchApp.stub.cycles();
    expect(before).toEqual({ active: null, last: cycleId + 1 });
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 4 } }));
    await expectOk(fullFeed(app, 'start'));
    const staged = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, DOCUMENTS.slice(0, 60))));
    await allSettled(app, [staged.firstId, staged.lastId], { staged: true });
    const held = await stagedRows(app, 3);
    expect(held).toBeGreaterThan(0);
    expect(await app.searchApp.shard(3).dropFromLayout(3, before)).toBe(false);
    expect(await stagedRows(app, 3)).toBe(held);
    await expectOk(fullFeed(app, 'cancel'));
  });

  it('a cycle cancelled on shard 0 only is dropped at the next recovery check by every shard it staged into, live or never live', async () => {
    const app = await shardedApp(2);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    // A 4-shard full feed cancelled on shard 0 only: shards 2 and 3, never in a live layout, hold its staging as shard 1 does.
    await feedCancelledOnShardZero(app, 4);
    for (const shard of [1, 2, 3]) expect(await stagedRows(app, shard), `shard ${shard}`).toBeGreaterThan(0);

    await runRecoveryCheck(app);
    await waitFor(
      () => Promise.all([1, 2, 3].map((shard) => stagedRows(app, shard))),
      (rows) => rows.every((n) => n === 0),
    );
    for (const shard of [2, 3]) expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
    expect((await app.searchApp.shard(1).fullFeedStatus()).active).toBe(false);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(40);
  });

  it('a new shard count takes effect at the swap: documents move, nothing is lost', async () => {
    const app = await shardedApp(2);
    await feedFully(app, DOCUMENTS.slice(0, 50));
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 2, generation: 1 });
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 3 } }));
    await feedFully(app, DOCUMENTS.slice(0, 80));
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 3, generation: 2 });
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(80);
    // Every document on the shard the new count routes it to, and on no other.
    for (const { header } of DOCUMENTS.slice(0, 80)) {
      const holders = await Promise.all([0, 1, 2].map(async (shard) => (await app.searchApp.shard(shard).document(header.id)) !== null));
      expect(holders).toEqual([0, 1, 2].map((shard) => shard === shardOf(header.id, 3)));
    }
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 1 } }));
    await feedFully(app, DOCUMENTS.slice(0, 20));
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 1, generation: 3 });
    expect((await app.searchApp.search({ page: 1, rows: 50 })).total).toBe(20);
    expect((await app.searchApp.shard(2).stats()).documents).toBe(0);
  });
});

describe('deleting a sharded search app', () => {
  /** Which of the app's possible shard objects exist (hold storage). */
  async function existingShards(app: FeedingApp): Promise<number[]> {
    const ids = await listDurableObjectIds(env.SEARCH_APP);
    const names = shardNumbers(MAX_SHARDS).map((shard) => env.SEARCH_APP.idFromName(shardName(app.tenant, app.code, shard)));
    return shardNumbers(MAX_SHARDS).filter((shard) => ids.some((id) => id.equals(names[shard])));
  }

  it('wipes every shard the app wrote into, never in a live layout too, and calls no object that never existed', async () => {
    const app = await shardedApp(2);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    // A 4-shard full feed cancelled on shard 0 only: shards 2 and 3, never in a live layout, keep its staging.
    await feedCancelledOnShardZero(app, 4);
    expect(await existingShards(app)).toEqual([0, 1, 2, 3]);
    for (const shard of [2, 3]) expect(await stagedRows(app, shard), `shard ${shard}`).toBeGreaterThan(0);

    expect((await call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN })).status).toBe(204);
    expect(await existingShards(app)).toEqual([0, 1, 2, 3]);
    // Deleted, tables too: the storage is not created again empty.
    for (const shard of [0, 1, 2, 3]) expect(await tables(app, shard), `shard ${shard}`).toEqual([]);
  });

  it('wipes all 16 shard names of an app whose shard 0 was stored before it counted its shards', async () => {
    const app = await shardedApp(1);
    await feedFully(app, DOCUMENTS.slice(0, 10));
    // Shard 9 holds a cycle no record names any more, and shard 0 holds no count (both as stored before the count).
    await app.searchApp.shard(9).joinCycle({ id: 99, state: 'ACTIVE', startedAt: new Date().toISOString(), shards: 10 });
    await runInDurableObject(app.searchApp.stub, (_instance, state) => state.storage.sql.exec(`DELETE FROM meta WHERE key = 'shardsUsed'`));
    expect(await storedRows(app, 9)).toBeGreaterThan(0);

    expect((await call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN })).status).toBe(204);
    for (const shard of [0, 9]) expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
  });
});

describe('a cross-shard swap whose job died once the swap was decided', () => {
  let one: FeedingApp;
  beforeAll(async () => {
    one = await shardedApp(1);
    await feedFully(one, DOCUMENTS);
  }, 120_000);

  /** The top 10 ids of every query. */
  const ranked = async (app: FeedingApp) =>
    Promise.all(RANKED_APART_BY_SHARD.map(async (q) => (await app.searchApp.search({ q, page: 1, rows: 10 })).documents.map((d) => d.id)));

  /**
   * An app fed 40 documents into `from` shards, then a full feed of every document into `to` shards, ended and voted
   * for by every shard as the consumer's job does (`prepareSwap`); the test commits what the job did before it died.
   */
  async function votedFullFeed(from: number, to: number) {
    const app = await shardedApp(from);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: to } }));
    const { cycleId } = await json<{ cycleId: number }>(await expectOk(fullFeed(app, 'start')));
    const accepted = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, DOCUMENTS)));
    const entries = Array.from({ length: accepted.lastId - accepted.firstId + 1 }, (_, i) => accepted.firstId + i);
    await allSettled(app, entries, { staged: true });
    // End as the route does, minus the swap it starts itself when nothing is pending: the job here is the one that dies.
    await app.searchApp.requestFullFeedEnd();
    const { layout } = await app.searchApp.layout();
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    const swap = { cycleId, layout: { shards: to, generation: layout.generation + 1 }, config };
    const shards: SwappingShards = {
      coordinator: app.searchApp.name,
      shard: (shard) => app.searchApp.shard(shard),
      shardName: (shard) => shardName(app.tenant, app.code, shard),
      committed: () => undefined,
    };
    expect(await prepareSwap(shards, swap, layout)).toBeUndefined();
    return { app, cycleId, entries, swap, config };
  }

  /** The recovery check, then the cycle's entries are FINISHED. */
  async function recovered(app: FeedingApp, entries: number[]) {
    await runRecoveryCheck(app);
    expect(new Set((await allSettled(app, entries)).values())).toEqual(new Set(['FINISHED']));
  }

  it('after shard 0 committed, the recovery check destroys the dropped shards and has the others exchange statistics', async () => {
    const { app, cycleId, entries, swap, config } = await votedFullFeed(4, 2);
    // The job committed both shards of the new layout, shard 0 last, and died before what follows.
    for (const shard of [1, 0]) expect(await app.searchApp.shard(shard).commitSwap(swap.layout.generation)).toBe(true);
    // Its retry finds the cycle ended.
    expect(await app.searchApp.finishFullFeed(cycleId, config)).toBe('not-ending');

    await recovered(app, entries);
    for (const shard of [2, 3]) expect(await storedRows(app, shard), `dropped shard ${shard}`).toBe(0);
    for (const shard of [0, 1]) expect(await othersChunks(app, shard), `shard ${shard}`).toBeGreaterThan(0);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(DOCUMENTS.length);
    expect(await ranked(app)).toEqual(await ranked(one));
  });

  it('committed by a search that met two generations, the recovery check has the shards exchange statistics', async () => {
    const { app, entries, swap } = await votedFullFeed(3, 3);
    // The job committed shard 1 and died; a search meets generations 1 and 2 and commits shards 0 and 2 to 2.
    expect(await app.searchApp.shard(1).commitSwap(swap.layout.generation)).toBe(true);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(DOCUMENTS.length);
    for (const shard of [0, 2]) expect((await app.searchApp.shard(shard).shardView()).layout, `shard ${shard}`).toEqual(swap.layout);

    await recovered(app, entries);
    for (const shard of [0, 1, 2]) expect(await othersChunks(app, shard), `shard ${shard}`).toBeGreaterThan(0);
    expect(await ranked(app)).toEqual(await ranked(one));
  });

  it('a late follow-up leaves alone the dropped shards a newer full feed stages into', async () => {
    const { app, entries, swap } = await votedFullFeed(4, 2);
    for (const shard of [1, 0]) expect(await app.searchApp.shard(shard).commitSwap(swap.layout.generation)).toBe(true);
    // Before the recovery check, the app goes back to 4 shards and a new full feed stages into shards 2 and 3 too.
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 4 } }));
    await expectOk(fullFeed(app, 'start'));
    const accepted = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, DOCUMENTS.slice(0, 60))));
    await allSettled(app, [accepted.firstId, accepted.lastId], { staged: true });

    await recovered(app, entries);
    await expectOk(fullFeed(app, 'end'));
    const status = await waitFor(
      async () => json<{ state: string }>(await call('GET', `/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, { token: app.feed })),
      (s) => s.state !== 'ACTIVE' && s.state !== 'ENDING',
    );
    expect(status.state).toBe('NONE');
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 4, generation: swap.layout.generation + 1 });
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(60);
  });

  it('a statistics share handed after a newer swap is ignored', async () => {
    const app = await shardedApp(2);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    const stale = await app.searchApp.shard(1).statisticsShare();
    await feedFully(app, DOCUMENTS);
    // An exchange of generation 1 reaching shard 0 only now (it took the shares before the swap).
    expect(await app.searchApp.shard(0).useOtherShards(stale.share, stale.generation)).toBe(false);
    expect(await ranked(app)).toEqual(await ranked(one));
  });
});

describe('a re-index job changing the shard count', () => {
  /** Puts the app's `shards` setting, schedules a re-index job and waits for its end. */
  async function reshardTo(app: FeedingApp, shards: number): Promise<{ state: string; error?: string }> {
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards } }));
    return jobEnd(app, await scheduleJob(app));
  }

  async function scheduleJob(app: FeedingApp): Promise<string> {
    const scheduled = await expectOk(call('PUT', `/api/v1/job/${app.tenant}/${app.code}/feeding/_schedule`, { token: app.feed, body: {} }));
    return (await json<{ jobId: string }>(scheduled)).jobId;
  }

  async function jobEnd(app: FeedingApp, jobId: string): Promise<{ state: string; error?: string }> {
    return waitFor(
      async () =>
        json<{ state: string; error?: string }>(await call('GET', `/api/v1/job/${app.tenant}/${app.code}/${jobId}`, { token: app.feed })),
      (job) => job.state === 'FINISHED' || job.state === 'ERROR',
    );
  }

  /** Which shards of `count` hold each document: exactly the one the layout routes it to. */
  async function expectPlaced(app: FeedingApp, ids: string[], count: number) {
    for (const id of ids) {
      const holders = await Promise.all(
        Array.from({ length: count }, async (_, shard) => (await app.searchApp.shard(shard).document(id)) !== null),
      );
      expect(holders, id).toEqual(holders.map((_, shard) => shard === shardOf(id, count)));
    }
  }

  /**
   * An app on `from` shards whose move to `to` dies once shard 0 recorded the decision, before any shard committed; the
   * seal of shard `sealed` (of the old layout) lapses. A live write to that shard is held back (it would have gone live
   * on old rows the commit replaces, or with a shard the move drops) until the job's retry commits, then goes live.
   */
  async function writeAfterDecidedMove(from: number, to: number, sealed: number) {
    const app = await shardedApp(1);
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    const client = app.searchApp;
    if (from > 1) await client.reshard(from, config, 'job-before');
    const { generation } = (await client.layout()).layout;
    const update = (opId: number, documentId: string): FeedOperation => ({
      opId,
      documentId,
      operation: 'update',
      payload: { name: documentId },
    });
    await client.apply(
      Array.from({ length: 10 }, (_, i) => update(i + 1, `doc-${i}`)),
      config,
    );
    let died = false;
    const dying = objectCallsThrough((send, method) => {
      died ||= method === 'commitSwap';
      return died ? Promise.reject(new Error('the process died')) : send();
    });
    await expect(new SearchAppClient(dying, app.tenant, app.code).reshard(to, config, 'job-decided')).rejects.toThrow('died');
    expect((await client.stub.vote())?.decided).toBe(true);
    await runInDurableObject(client.shard(sealed), (_instance, state) => {
      state.storage.sql.exec(`UPDATE meta SET value = ? WHERE key = 'sealedUntil'`, JSON.stringify(Date.now() - 1));
    });
    const late = ['late-0', 'late-1', 'late-2', 'late-3'].find((id) => shardOf(id, from) === sealed)!;
    // The shard answers the wait (an RPC rejection would be reported as the object's uncaught exception); the client throws it.
    expect(await client.shard(sealed).applyToShard([update(100, late)], config, [], generation)).toEqual(MOVING);
    await expect(client.apply([update(100, late)], config)).rejects.toThrow('moving');
    await client.reshard(to, config, 'job-decided');
    expect((await client.layout()).layout).toEqual({ shards: to, generation: generation + 1 });
    expect(await client.apply([update(100, late)], config)).toEqual([{ opId: 100, state: 'FINISHED' }]);
    expect(await client.document(late)).toEqual({ name: late });
    expect((await client.search({ page: 1, rows: 20 })).total).toBe(11);
  }

  it('a move whose job died once it was decided is committed by shard 0 30 s after the decision, and live feeding goes on', async () => {
    const app = await shardedApp(1);
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    const client = app.searchApp;
    const update = (opId: number, documentId: string): FeedOperation => ({
      opId,
      documentId,
      operation: 'update',
      payload: { name: documentId },
    });
    const ids = Array.from({ length: 10 }, (_, i) => `doc-${i}`);
    await client.apply(
      ids.map((id, i) => update(i + 1, id)),
      config,
    );
    let died = false;
    const dying = objectCallsThrough((send, method) => {
      died ||= method === 'commitSwap';
      return died ? Promise.reject(new Error('the process died')) : send();
    });
    await expect(new SearchAppClient(dying, app.tenant, app.code).reshard(2, config, 'job-decided')).rejects.toThrow('died');
    expect((await client.stub.vote())?.decided).toBe(true);
    // Live feeding waits on the voters (shard 0 here) while the move is uncommitted.
    expect(await client.stub.apply([update(100, 'late')], config, [], 0)).toEqual(MOVING);
    await expect(client.apply([update(100, 'late')], config)).rejects.toThrow('moving');
    // No retry came: 30 s after the decision (well within the move's 15-minute lease), shard 0's alarm commits it.
    await runInDurableObject(client.stub, (_instance, state) => {
      const decidedAt = Date.now() - DECIDED_MOVE_COMMIT_MS - 1;
      state.storage.sql.exec(`UPDATE meta SET value = json_set(value, '$.decidedAt', ?) WHERE key = 'ready'`, decidedAt);
    });
    expect(await runDurableObjectAlarm(client.stub)).toBe(true);
    expect((await client.layout()).layout).toEqual({ shards: 2, generation: 1 });
    expect(await client.apply([update(100, 'late')], config)).toEqual([{ opId: 100, state: 'FINISHED' }]);
    await expectPlaced(app, [...ids, 'late'], 2);
    expect((await client.search({ page: 1, rows: 20 })).total).toBe(11);
  });

  /** The queue's delivery of one message to the real feeding consumer, in `runtime`; answers what it acked and retried. */
  async function deliver(runtime: Env, id: string, body: FeedingMessage) {
    const batch = createMessageBatch<FeedingMessage>('feeding', [{ id, timestamp: new Date(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, runtime, ctx);
    const result = await getQueueResult(batch, ctx);
    return { acked: result.explicitAcks, retried: result.retryMessages.map((message) => message.msgId) };
  }

  /**
   * An app of 10 documents on 1 shard whose setting is 2, a re-index job recorded in D1 as the schedule route records
   * it (its message is delivered by the test), and a live update accepted meanwhile (entry and message).
   */
  async function moveAhead() {
    const app = await shardedApp(1);
    const accepted = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, DOCUMENTS.slice(0, 10))));
    await allSettled(app, [accepted.firstId, accepted.lastId]);
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 2 } }));
    const row = (await findSearchApp(createDb(env.DB), app.tenant, app.code))!;
    const jobId = crypto.randomUUID();
    await env.DB.prepare('INSERT INTO feeding_jobs (id, app_id) VALUES (?, ?)').bind(jobId, row.id).run();
    const job: FeedingMessage = { kind: 'reindex', appId: row.id, jobId };
    const { last } = await app.searchApp.stub.cycles();
    const payload = { name: 'late' };
    const entry = await env.DB.prepare(
      `INSERT INTO feeding_operations (app_id, document_id, operation, state, type, last_cycle_id, payload, sent_at)
       VALUES (?, 'late', 'update', 'CREATED', 'svc', ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) RETURNING id`,
    )
      .bind(row.id, last, JSON.stringify(payload))
      .first<{ id: number }>();
    const opId = entry!.id;
    const write: FeedingMessage = {
      kind: 'operations',
      appId: row.id,
      operations: [{ opId, documentId: 'late', operation: 'update', payload, lastCycle: last }],
    };
    const states = async () => ({
      job: (await env.DB.prepare('SELECT state FROM feeding_jobs WHERE id = ?').bind(jobId).first<{ state: string }>())!.state,
      write: (await env.DB.prepare('SELECT state FROM feeding_operations WHERE id = ?').bind(opId).first<{ state: string }>())!.state,
    });
    const ids = [...DOCUMENTS.slice(0, 10).map((d) => d.header.id), 'late'];
    return { app, job, write, states, ids };
  }

  /** Where a call waits: `arrived` once one reached `wait`, which returns once `open` was called. */
  function gate() {
    let arrive!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const wait = async () => {
      arrive();
      await opened;
    };
    return { arrived, open, wait };
  }

  /** Shard 0's vote for the move, cast `VOTED_MOVE_DECIDE_MS` ago as far as its clock tells. */
  async function ageVote(app: FeedingApp) {
    await runInDurableObject(app.searchApp.stub, (_instance, state) => {
      const votedAt = Date.now() - VOTED_MOVE_DECIDE_MS - 1;
      state.storage.sql.exec(`UPDATE meta SET value = json_set(value, '$.votedAt', ?) WHERE key = 'ready'`, votedAt);
    });
  }

  /** Shard 0's alarm, 30 s after its vote, makes the 2-shard layout live. */
  async function committedByShardZero(app: FeedingApp) {
    await ageVote(app);
    expect(await runDurableObjectAlarm(app.searchApp.stub)).toBe(true);
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 2, generation: 1 });
  }

  /** The job FINISHED, the live write goes live on its delivery, every document on its shard of 2. */
  async function expectMoved({ app, write, states, ids }: Awaited<ReturnType<typeof moveAhead>>) {
    expect(await deliver(env, 'write', write)).toEqual({ acked: ['write'], retried: [] });
    expect(await states()).toEqual({ job: 'FINISHED', write: 'FINISHED' });
    await expectPlaced(app, ids, 2);
    expect((await app.searchApp.search({ page: 1, rows: 20 })).total).toBe(11);
  }

  /**
   * The job's delivery held where `hold` calls `wait` (answering as `hold` does once let through) while shard 0's alarm
   * commits the move; then the job ends, not failed.
   */
  async function heldWhileShardZeroCommits(
    hold: (send: () => Promise<unknown>, method: string, wait: () => Promise<void>) => Promise<unknown>,
  ) {
    const moving = await moveAhead();
    const held = gate();
    const running = deliver(
      objectCallsThrough((send, method) => hold(send, method, held.wait)),
      'job',
      moving.job,
    );
    await held.arrived;
    await committedByShardZero(moving.app);
    held.open();
    expect(await running).toEqual({ acked: ['job'], retried: [] });
    await expectMoved(moving);
  }

  it('a move whose job died after every shard voted, before deciding, is decided and committed by shard 0 30 s after its vote', async () => {
    const moving = await moveAhead();
    const { app, job, write, states } = moving;
    // The job's process dies when it would record the decision: every shard of the new layout voted.
    const dying = objectCallsThrough((send, method) => (method === 'decideSwap' ? Promise.reject(new Error('the process died')) : send()));
    expect(await deliver(dying, 'job', job)).toEqual({ acked: [], retried: ['job'] });
    expect(await app.searchApp.stub.vote()).toMatchObject({ cycleId: -1, layout: { shards: 2, generation: 1 } });
    expect((await app.searchApp.stub.vote())?.decided).toBeUndefined();
    // Live feeding waits on the voters: the consumer retries the write.
    expect(await deliver(env, 'write', write)).toEqual({ acked: [], retried: ['write'] });
    expect(await states()).toEqual({ job: 'STARTED', write: 'STARTED' });
    // No retry came: 30 s after its vote (well within the move's 15-minute lease), shard 0 finds every vote and commits;
    // the job's retry finds the layout it was to make and ends.
    await committedByShardZero(app);
    expect(await deliver(env, 'job', job)).toEqual({ acked: ['job'], retried: [] });
    await expectMoved(moving);
  });

  it('a slow job whose move shard 0 decided and committed meanwhile finishes it, not failed', async () => {
    await heldWhileShardZeroCommits(async (send, method, wait) => {
      if (method === 'decideSwap') await wait();
      return send();
    });
  });

  it("a job that lost a shard's answer to its vote after shard 0 decided and committed the move commits it too, instead of aborting", async () => {
    // Shard 1 votes, but its answer reaches the job only after shard 0's alarm, and as a failure.
    let votes = 0;
    await heldWhileShardZeroCommits(async (send, method, wait) => {
      if (method !== 'prepareSwap' || ++votes < 2) return send();
      await send();
      await wait();
      throw new Error('the answer was lost');
    });
  });

  it('a slow job whose seal lapsed before its votes, a live write applied meanwhile, fails the move and keeps the write', async () => {
    const { app, job, write, states } = await moveAhead();
    const client = app.searchApp;
    // The job is slow between its last catch-up and its votes: the seal lapses and live feeding applies the write on shard 0.
    const held = gate();
    const slow = objectCallsThrough(async (send, method) => {
      if (method === 'prepareSwap') await held.wait();
      return send();
    });
    const running = deliver(slow, 'job', job);
    await held.arrived;
    await runInDurableObject(client.stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE meta SET value = ? WHERE key = 'sealedUntil'`, JSON.stringify(Date.now() - 1));
    });
    expect(await deliver(env, 'write', write)).toEqual({ acked: ['write'], retried: [] });
    held.open();
    // Shard 0 refuses to vote: its staging may lack the write, which the commit would have replaced.
    expect(await running).toEqual({ acked: ['job'], retried: [] });
    expect(await states()).toEqual({ job: 'ERROR', write: 'FINISHED' });
    expect((await client.layout()).layout).toEqual({ shards: 1, generation: 0 });
    expect(await client.document('late')).toEqual({ name: 'late' });
    expect((await client.search({ page: 1, rows: 20 })).total).toBe(11);
  });

  it('a move missing a vote 30 s after shard 0 voted stays undecided (the vote may yet come) until its lease lapses', async () => {
    const { app, job, write, states } = await moveAhead();
    const client = app.searchApp;
    // The job loses the objects as it asks the second shard for its vote: shard 0 voted, shard 1 staged and did not, and
    // the job's abort reaches neither (it ends ERROR, shard 1 not having answered).
    let votes = 0;
    const cut = objectCallsThrough((send, method) => {
      votes += method === 'prepareSwap' ? 1 : 0;
      return votes >= 2 ? Promise.reject(new Error('the objects are out of reach')) : send();
    });
    expect(await deliver(cut, 'job', job)).toEqual({ acked: ['job'], retried: [] });
    expect((await client.stub.vote())?.cycleId).toBe(-1);
    await ageVote(app);
    expect(await runDurableObjectAlarm(client.stub)).toBe(true);
    expect((await client.layout()).layout).toEqual({ shards: 1, generation: 0 });
    expect((await client.stub.vote())?.decided).toBeUndefined();
    expect(await deliver(env, 'write', write)).toEqual({ acked: [], retried: ['write'] });
    // The seal and then the lease lapse: shard 0 drops the move, the old layout stays live and takes the write.
    await runInDurableObject(client.stub, (_instance, state) => {
      const startedAt = Date.now() - RESHARD_LEASE_MS - 1;
      state.storage.sql.exec(`UPDATE meta SET value = json_set(value, '$.startedAt', ?) WHERE key = 'reshard'`, startedAt);
      state.storage.sql.exec(`UPDATE meta SET value = ? WHERE key = 'sealedUntil'`, JSON.stringify(Date.now() - 1));
    });
    expect(await runDurableObjectAlarm(client.stub)).toBe(true);
    expect(await client.stub.vote()).toBeNull();
    expect(await deliver(env, 'write', write)).toEqual({ acked: ['write'], retried: [] });
    expect(await states()).toEqual({ job: 'ERROR', write: 'FINISHED' });
    expect((await client.layout()).layout).toEqual({ shards: 1, generation: 0 });
    expect((await client.search({ page: 1, rows: 20 })).total).toBe(11);
  });

  it('a live write after a decided move lapsed its seal waits for the move (its vote), then goes live', async () => {
    await writeAfterDecidedMove(1, 2, 0);
  });

  it('so does one on a shard a decided move drops, whose seal lapsed (it never votes)', async () => {
    await writeAfterDecidedMove(2, 1, 1);
  });

  it('a live write routed by the 1-shard layout read before a move to 2 committed is retried, then goes to its new shard', async () => {
    const app = await shardedApp(1);
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    const client = app.searchApp;
    const id = ['raced-0', 'raced-1', 'raced-2', 'raced-3'].find((candidate) => shardOf(candidate, 2) === 1)!;
    const update = (opId: number, description: string): FeedOperation => ({
      opId,
      documentId: id,
      operation: 'update',
      payload: { name: id, description },
    });
    await client.apply([update(1, 'before')], config);
    // The delivery read the layout (1 shard), then the move committed before its call reached shard 0.
    let moved = false;
    const racing = objectCallsThrough(async (send, method) => {
      if (method === 'apply' && !moved) {
        moved = true;
        await client.reshard(2, config, 'job-racing');
      }
      return send();
    });
    await expect(new SearchAppClient(racing, app.tenant, app.code).apply([update(2, 'after')], config)).rejects.toThrow('retry');
    expect((await client.layout()).layout).toEqual({ shards: 2, generation: 1 });
    expect(await client.shard(0).document(id)).toBeNull();
    expect(await client.stub.apply([update(2, 'after')], config, [], 0)).toEqual({
      retry: 'operations routed by the layout of generation 0, this shard is at 1: retry',
    });
    // The queue's retry routes it by the new layout.
    expect(await client.apply([update(2, 'after')], config)).toEqual([{ opId: 2, state: 'FINISHED' }]);
    expect(await client.document(id)).toEqual({ name: id, description: 'after' });
    expect(await client.shard(0).document(id)).toBeNull();
    expect((await client.search({ page: 1, rows: 10 })).total).toBe(1);
  });

  it('moves every document to its shard of the new count, answers as before, and destroys the shards dropped', async () => {
    const app = await shardedApp(2);
    const documents = DOCUMENTS.slice(0, 60);
    await feedFully(app, documents);
    const ids = documents.map((d) => d.header.id);
    const request = { q: 'lib', page: 1, rows: 10 };
    const before = await app.searchApp.search(request);

    expect((await reshardTo(app, 3)).state).toBe('FINISHED');
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 3, generation: 2 });
    await expectPlaced(app, ids, 3);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(60);
    expect((await app.searchApp.search(request)).documents).toEqual(before.documents);

    // Live feeding after the move routes by the new layout.
    const id = ids[7];
    const changed = { header: { id, action: 'update' }, payload: { ...documents[7].payload, description: 'a qwertzuiop marker' } };
    const accepted = await json<{ firstId: number }>(await expectOk(bulk(app, [changed])));
    await allSettled(app, [accepted.firstId]);
    expect((await app.searchApp.search({ q: 'qwertzuiop', page: 1, rows: 5 })).documents.map((d) => d.id)).toEqual([id]);
    await expectPlaced(app, [id], 3);
    const changedAnswer = await app.searchApp.search(request);

    expect((await reshardTo(app, 1)).state).toBe('FINISHED');
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 1, generation: 3 });
    expect((await app.searchApp.search(request)).documents).toEqual(changedAnswer.documents);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(60);
    for (const shard of [1, 2]) expect((await app.searchApp.shard(shard).stats()).documents).toBe(0);
  });

  it('moves the documents into shards holding a cycle whose end never reached them', async () => {
    const app = await shardedApp(1);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    // A 4-shard full feed cancelled on shard 0 only: shards 1 to 3 still hold it.
    await feedCancelledOnShardZero(app, 4);

    const job = await reshardTo(app, 4);
    expect(job).toMatchObject({ state: 'FINISHED' });
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 4, generation: 1 });
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(40);
    await expectPlaced(
      app,
      DOCUMENTS.slice(0, 40).map((d) => d.header.id),
      4,
    );
    for (const shard of [1, 2, 3]) expect(await stagedRows(app, shard), `shard ${shard}`).toBe(0);
  });

  it('keeps every change fed while the documents move', async () => {
    const app = await shardedApp(1);
    await feedFully(app, DOCUMENTS.slice(0, 80));
    const changes = DOCUMENTS.slice(0, 40).map(({ header, payload }) => ({ header, payload: { ...payload, description: 'asdfghjk' } }));
    const additions = DOCUMENTS.slice(80, 100);
    // Batches accepted before, during and after the move, whichever way they interleave with it.
    const feeding = (async () => {
      const ids: number[] = [];
      for (const batch of [changes.slice(0, 20), additions, changes.slice(20)]) {
        const accepted = await json<{ firstId: number; lastId: number }>(await expectOk(bulk(app, batch)));
        ids.push(accepted.firstId, accepted.lastId);
      }
      return allSettled(app, ids);
    })();
    const [job] = await Promise.all([reshardTo(app, 4), feeding]);
    expect(job.state).toBe('FINISHED');
    expect((await app.searchApp.layout()).layout.shards).toBe(4);
    await expectPlaced(
      app,
      DOCUMENTS.slice(0, 100).map((d) => d.header.id),
      4,
    );
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(100);
    expect((await app.searchApp.search({ q: 'asdfghjk', page: 1, rows: 1 })).total).toBe(40);
  });

  it('keeps a deleted document deleted when an older operation of it arrives after the move', async () => {
    const app = await shardedApp(1);
    await feedFully(app, DOCUMENTS.slice(0, 20));
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    const { header, payload } = DOCUMENTS[3];
    // Operation ids above any the feeds gave; the update is older than the delete, as a re-sent message would be.
    const deletion = await app.searchApp.apply([{ opId: 1_000_001, documentId: header.id, operation: 'delete' }], config);
    expect(deletion).toEqual([{ opId: 1_000_001, state: 'FINISHED' }]);

    expect((await reshardTo(app, 3)).state).toBe('FINISHED');
    const late = await app.searchApp.apply([{ opId: 1_000_000, documentId: header.id, operation: 'update', payload }], config);
    expect(late).toEqual([{ opId: 1_000_000, state: 'IGNORED' }]);
    expect(await app.searchApp.document(header.id)).toBeNull();
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(19);
  });

  it('one job moves the documents at a time; one abandoned is taken over after its lease', async () => {
    const app = await shardedApp(1);
    await feedFully(app, DOCUMENTS.slice(0, 60));
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    // Job a is moving the documents (it began the move on shard 0).
    const moving = { id: -1, shards: 3, job: 'job-a', startedAt: Date.now() };
    expect((await app.searchApp.stub.beginReshard(moving)).ok).toBe(true);
    await expect(app.searchApp.reshard(3, config, 'job-b')).rejects.toThrow('Re-index job job-a is moving the documents to 3 shards');
    expect((await fullFeed(app, 'start')).status).toBe(409);
    expect((await app.searchApp.layout()).layout.shards).toBe(1);
    // Job a died: after its lease, job b takes over and moves every document.
    await app.searchApp.stub.beginReshard({ ...moving, startedAt: Date.now() - RESHARD_LEASE_MS - 1 });
    await app.searchApp.reshard(3, config, 'job-b');
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 3, generation: 1 });
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(60);
    await expectPlaced(
      app,
      DOCUMENTS.slice(0, 60).map((d) => d.header.id),
      3,
    );
  });

  /**
   * An app of 1 shard and 40 documents a job began moving to 4 shards (what `reshard` does first), shard 3's rows, and
   * the swap the shards would vote for.
   */
  async function movingToFourShards() {
    const app = await shardedApp(1);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    const reshard = { id: -1, shards: 4, job: 'job-a', startedAt: Date.now(), coordinator: app.searchApp.name };
    for (const shard of [0, 1, 2, 3]) expect((await app.searchApp.shard(shard).beginReshard(reshard)).ok).toBe(true);
    const rows = (await app.searchApp.shard(0).movingRows(-1, '', 1_000)).rows.filter((row) => shardOf(row.id, 4) === 3);
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    const swap = { cycleId: reshard.id, layout: { shards: 4, generation: 1 }, config };
    return { app, reshard, rows, swap };
  }

  /** Moves a shard's `reshard` (or `sealedUntil`) record back past its end, as if the lease (or seal) lapsed. */
  async function lapse(app: FeedingApp, shard: number, key: 'reshard' | 'sealedUntil') {
    await runInDurableObject(app.searchApp.shard(shard), (_instance, state) => {
      const value = JSON.parse(state.storage.sql.exec<{ value: string }>('SELECT value FROM meta WHERE key = ?', key).one().value);
      const lapsed = key === 'reshard' ? { ...value, startedAt: Date.now() - RESHARD_LEASE_MS - 1 } : Date.now() - 1;
      state.storage.sql.exec('UPDATE meta SET value = ? WHERE key = ?', JSON.stringify(lapsed), key);
    });
  }

  it('deleting the app while its documents move leaves nothing in any shard, and the move stops', async () => {
    // The job staged a first page.
    const { app, reshard, rows } = await movingToFourShards();
    expect((await app.searchApp.shard(3).stageMoved(reshard.id, rows, [])).ok).toBe(true);
    expect(await storedRows(app, 3)).toBeGreaterThan(rows.length);

    expect((await call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN })).status).toBe(204);
    for (const shard of [0, 1, 2, 3]) expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
    // The job goes on: its next page is refused (it aborts), so nothing is written into the wiped shards.
    const refused = await app.searchApp.shard(3).stageMoved(reshard.id, rows, []);
    expect(refused).toMatchObject({ ok: false, status: 409 });
    expect(await storedRows(app, 3)).toBe(0);
  });

  it('a move whose job died after its app was deleted leaves nothing once its lease lapsed', async () => {
    const { app, reshard, rows } = await movingToFourShards();
    await expectOk(call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN }));
    // Racing the delete, the job joined shard 3 after its wipe, staged a page it had read before it, sealed shard 0
    // (wiped too), then died: no retry finds the app to name these shards.
    const shard3 = app.searchApp.shard(3);
    expect((await shard3.beginReshard(reshard)).ok).toBe(true);
    expect((await shard3.stageMoved(reshard.id, rows, [])).ok).toBe(true);
    await app.searchApp.shard(0).seal(30_000);
    expect(await storedRows(app, 3)).toBeGreaterThan(rows.length);
    expect(await storedRows(app, 0)).toBe(1);

    // Before the lease ends the alarm keeps the staging (the job may still be moving), and is armed again.
    await runDurableObjectAlarm(shard3);
    expect(await storedRows(app, 3)).toBeGreaterThan(rows.length);
    // Lapsed (as if 15 minutes passed): the staging goes, and with it everything the object held.
    for (const [shard, key] of [
      [3, 'reshard'],
      [0, 'sealedUntil'],
    ] as const) {
      await lapse(app, shard, key);
      await runDurableObjectAlarm(app.searchApp.shard(shard));
      expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
    }
  });

  it('deleting the app reaches the shards a job racing the deletion wrote into after their wipe', async () => {
    const { app, reshard, rows, swap } = await movingToFourShards();
    await expectOk(call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN }));
    // The job joined shard 5 (a count shard 0 never named), staged and voted there after the wipe.
    const late = app.searchApp.shard(5);
    expect((await late.beginReshard({ ...reshard, shards: 6 })).ok).toBe(true);
    expect((await late.stageMoved(reshard.id, rows, [])).ok).toBe(true);
    expect((await late.prepareSwap({ ...swap, layout: { shards: 6, generation: 1 } }, shardName(app.tenant, app.code, 5))).ok).toBe(true);
    expect(await storedRows(app, 5)).toBeGreaterThan(rows.length);
    // What the job does at its end when its app is gone; shard 0 no longer knows of any other shard.
    await app.searchApp.destroy();
    expect(await storedRows(app, 5)).toBe(0);
  });

  it('a shard that voted for a move keeps it past the lease while the coordinator holds it, and drops it once the app is gone', async () => {
    const { app, reshard, rows, swap } = await movingToFourShards();
    const shard3 = app.searchApp.shard(3);
    const stageAndVote = async () => {
      expect((await shard3.stageMoved(reshard.id, rows, [])).ok).toBe(true);
      expect((await shard3.prepareSwap(swap, shardName(app.tenant, app.code, 3))).ok).toBe(true);
    };
    await stageAndVote();
    // The job died after the vote: shard 0 still holds the move, which a retry may commit.
    await lapse(app, 3, 'reshard');
    await runDurableObjectAlarm(shard3);
    expect(await storedRows(app, 3)).toBeGreaterThan(rows.length);

    await expectOk(call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN }));
    // A job racing the deletion joined, staged and voted after the last wipe, then died: no job or deletion comes back.
    expect((await shard3.beginReshard(reshard)).ok).toBe(true);
    await stageAndVote();
    await lapse(app, 3, 'reshard');
    await runDurableObjectAlarm(shard3);
    expect(await storedRows(app, 3)).toBe(0);
  });

  /** What a shard holds of a move: its re-shard record, its vote and its staged rows. */
  async function heldMove(app: FeedingApp, shard: number) {
    return runInDurableObject(app.searchApp.shard(shard), async (_instance, state) => ({
      keys: state.storage.sql
        .exec<{ key: string }>("SELECT key FROM meta WHERE key IN ('reshard', 'ready') ORDER BY key")
        .toArray()
        .map((row) => row.key),
      staged: state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM staged').one().n,
    }));
  }

  /** A move to 4 shards whose every shard staged its rows and voted for the swap, after which its job died. */
  async function votedMove() {
    const moving = await movingToFourShards();
    const { app, reshard, swap } = moving;
    const rows = (await app.searchApp.shard(0).movingRows(-1, '', 1_000)).rows;
    for (const shard of [0, 1, 2, 3]) {
      const routed = rows.filter((row) => shardOf(row.id, 4) === shard);
      expect((await app.searchApp.shard(shard).stageMoved(reshard.id, routed, [])).ok).toBe(true);
      expect((await app.searchApp.shard(shard).prepareSwap(swap, shardName(app.tenant, app.code, shard))).ok).toBe(true);
    }
    return moving;
  }

  it('a move whose job died after every shard voted, never retried, is dropped by every shard once its lease lapsed', async () => {
    const { app, rows } = await votedMove();
    expect(await heldMove(app, 3)).toEqual({ keys: ['ready', 'reshard'], staged: rows.length });
    // Within the lease the job may still commit: the alarms keep the move.
    await runDurableObjectAlarm(app.searchApp.shard(3));
    expect(await heldMove(app, 3)).toEqual({ keys: ['ready', 'reshard'], staged: rows.length });

    for (const shard of [0, 1, 2, 3]) await lapse(app, shard, 'reshard');
    // Shard 3 asks the coordinator, which finds no shard committed and drops the move: so does shard 3.
    await runDurableObjectAlarm(app.searchApp.shard(3));
    expect(await storedRows(app, 3)).toBe(0);
    expect(await heldMove(app, 0)).toEqual({ keys: [], staged: 0 });
    for (const shard of [1, 2]) {
      await runDurableObjectAlarm(app.searchApp.shard(shard));
      expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
    }
    // The old layout stays live, whole.
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 1, generation: 0 });
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(40);
  });

  it('a move whose job died while committing is finished by the coordinator once its lease lapsed', async () => {
    const { app, swap } = await votedMove();
    const queries = ['lib', 'data', 'perl module'].map((q) => ({ q, page: 1, rows: 10 }));
    const ranked = async () => Promise.all(queries.map(async (q) => (await app.searchApp.search(q)).documents.map((d) => d.id)));
    const before = await ranked();
    // The job committed shard 1 and died before the others (shard 0 commits last).
    expect(await app.searchApp.shard(1).commitSwap(swap.layout.generation)).toBe(true);
    for (const shard of [0, 2, 3]) await lapse(app, shard, 'reshard');
    // Shard 2 asks the coordinator, which finds shard 1 committed: the swap was decided, it commits every shard and
    // has them exchange statistics, as the job would have.
    await runDurableObjectAlarm(app.searchApp.shard(2));
    for (const shard of [0, 1, 2, 3]) {
      expect(await heldMove(app, shard), `shard ${shard}`).toEqual({ keys: [], staged: 0 });
      expect((await app.searchApp.shard(shard).shardView()).layout, `shard ${shard}`).toEqual(swap.layout);
      expect(await othersChunks(app, shard), `shard ${shard} holds the other shards' statistics`).toBeGreaterThan(0);
    }
    await runDurableObjectAlarm(app.searchApp.shard(3));
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(40);
    // Ranked as one index of every document, as before the move.
    expect(await ranked()).toEqual(before);
  });

  it("a swap destroys a dropped shard holding a move whose lease lapsed before the shard's alarm came", async () => {
    const app = await shardedApp(4);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    // A job began moving the documents to 5 shards (every shard joined it) and died; its lease lapsed, and the shards'
    // alarms, armed for its end, have not come yet.
    const reshard = { id: -2, shards: 5, job: 'job-a', startedAt: Date.now(), coordinator: app.searchApp.name };
    for (const shard of shardNumbers(5)) {
      expect((await app.searchApp.shard(shard).beginReshard(reshard)).ok).toBe(true);
      await lapse(app, shard, 'reshard');
    }
    // The next full feed swaps to 2 shards: its follow-up destroys shards 2 and 3.
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 2 } }));
    expect((await feedFully(app, DOCUMENTS.slice(0, 30))).state).toBe('NONE');
    for (const shard of [2, 3]) expect(await storedRows(app, shard), `dropped shard ${shard}`).toBe(0);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(30);
  });

  it('a shard that voted for a lapsed move does not make it live when a full feed took its generation', async () => {
    // Every shard voted for a move from 1 to 4 shards (generation 1), then its job died and the lease lapsed.
    const { app, swap } = await votedMove();
    for (const shard of [0, 1, 2, 3]) await lapse(app, shard, 'reshard');
    // Before the shards' alarms come, a full feed to 2 shards takes generation 1 and swaps.
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 2 } }));
    const fed = DOCUMENTS.slice(100, 130);
    expect((await feedFully(app, fed)).state).toBe('NONE');
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 2, generation: swap.layout.generation });
    // Shards 2 and 3, in no live layout, ask shard 0 what became of the move they voted for: not committed.
    for (const shard of [2, 3]) {
      await runDurableObjectAlarm(app.searchApp.shard(shard));
      expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
    }
    // Shards 0 and 1 voted for the full feed instead: their alarms drop the move's staging.
    for (const shard of [0, 1]) {
      await runDurableObjectAlarm(app.searchApp.shard(shard));
      expect(await stagedRows(app, shard), `shard ${shard}`).toBe(0);
    }
    const ids = fed.map((d) => d.header.id);
    const live = await app.searchApp.search({ page: 1, rows: 100 });
    expect(live.documents.map((d) => d.id).sort()).toEqual([...ids].sort());
    await expectPlaced(app, ids, 2);
  });

  it('a swap destroys a dropped shard that voted for a move whose lease lapsed before its alarm came', async () => {
    const app = await shardedApp(4);
    await feedFully(app, DOCUMENTS.slice(0, 40));
    // A job moving the documents to 5 shards (generation 2) had every shard stage and vote, then died; its lease lapsed.
    const config = indexConfigOf((await findSearchApp(createDb(env.DB), app.tenant, app.code))!);
    const reshard = { id: -2, shards: 5, job: 'job-a', startedAt: Date.now(), coordinator: app.searchApp.name };
    const swap = { cycleId: reshard.id, layout: { shards: 5, generation: 2 }, config };
    const rows = (await app.searchApp.shard(0).movingRows(-1, '', 1_000)).rows;
    for (const shard of shardNumbers(5)) {
      const stub = app.searchApp.shard(shard);
      expect((await stub.beginReshard(reshard)).ok).toBe(true);
      expect(
        (
          await stub.stageMoved(
            reshard.id,
            rows.filter((row) => shardOf(row.id, 5) === shard),
            [],
          )
        ).ok,
      ).toBe(true);
      expect((await stub.prepareSwap(swap, shardName(app.tenant, app.code, shard))).ok).toBe(true);
      await lapse(app, shard, 'reshard');
    }
    // Before the shards' alarms come, a full feed to 2 shards takes generation 2: its follow-up drops shards 2 and 3.
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 2 } }));
    const fed = DOCUMENTS.slice(100, 130);
    expect((await feedFully(app, fed)).state).toBe('NONE');
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 2, generation: 2 });
    for (const shard of [2, 3, 4]) {
      await runDurableObjectAlarm(app.searchApp.shard(shard));
      expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
    }
    const ids = fed.map((d) => d.header.id);
    expect((await app.searchApp.search({ page: 1, rows: 100 })).documents.map((d) => d.id).sort()).toEqual([...ids].sort());
    await expectPlaced(app, ids, 2);
  });

  it('a move begun over a lapsed move to a generation a full feed took drops what that move staged and voted', async () => {
    // Every shard voted for a move from 1 to 4 shards (generation 1) that lapsed; a full feed to 2 shards took generation 1.
    const { app } = await votedMove();
    for (const shard of [0, 1, 2, 3]) await lapse(app, shard, 'reshard');
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 2 } }));
    expect((await feedFully(app, DOCUMENTS.slice(100, 130))).state).toBe('NONE');
    // Before the shards' alarms come, a job begins moving to 4 shards again (generation 2), then dies too.
    const later = { id: -2, shards: 4, job: 'job-b', startedAt: Date.now(), coordinator: app.searchApp.name };
    for (const shard of [0, 1, 2, 3]) {
      expect((await app.searchApp.shard(shard).beginReshard(later)).ok).toBe(true);
      expect(await heldMove(app, shard), `shard ${shard}`).toEqual({ keys: ['reshard'], staged: 0 });
      await lapse(app, shard, 'reshard');
    }
    for (const shard of [0, 1, 2, 3]) await runDurableObjectAlarm(app.searchApp.shard(shard));
    for (const shard of [0, 1]) expect(await stagedRows(app, shard), `shard ${shard}`).toBe(0);
    for (const shard of [2, 3]) expect(await storedRows(app, shard), `shard ${shard}`).toBe(0);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(30);
  });

  it('a shard refusing the new layout leaves the old one live, nothing staged, feeding going on', async () => {
    const app = await shardedApp(1, 'reshard-refusal');
    await feedFully(app, DOCUMENTS.slice(0, 40));
    // Shard 2 of the new layout refuses to prepare (TEST_REFUSE_SWAP).
    const job = await reshardTo(app, 4);
    expect(job.state).toBe('ERROR');
    expect(job.error).toContain(`${shardName(app.tenant, app.code, 2)} refuses swaps`);
    expect((await app.searchApp.layout()).layout.shards).toBe(1);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(40);
    // Nothing of the move is left: live feeding applies (no shard waits for it) and a full feed may start.
    const accepted = await json<{ firstId: number }>(await expectOk(bulk(app, DOCUMENTS.slice(40, 41))));
    await allSettled(app, [accepted.firstId]);
    expect((await app.searchApp.search({ page: 1, rows: 1 })).total).toBe(41);
    await expectOk(fullFeed(app, 'start'));
    await expectOk(fullFeed(app, 'cancel'));
  });
});

describe('object ids by name', () => {
  it('are remembered per isolate, each the id idFromName gives that name', () => {
    const name = shardName('ids', uniqueCode('app'), 1);
    const id = objectId(env.SEARCH_APP, name);
    expect(objectId(env.SEARCH_APP, name)).toBe(id);
    expect(id.equals(env.SEARCH_APP.idFromName(name))).toBe(true);
    expect(objectId(env.SEARCH_APP, shardName('ids', uniqueCode('app'), 1)).equals(id)).toBe(false);
  });
});
