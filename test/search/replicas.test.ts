import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { replicaName, type ReplicaRegion } from '../../src/search/replica-regions';
import { shardName, shardOf } from '../../src/search/shards';
import { ADMIN_TOKEN, BASE, call, expectOk, json, uniqueCode, waitFor } from '../helpers';
import { allSettled, bulk, envelope, feedingApp, fullFeed, type FeedingApp } from '../feeding/helpers';
import { TYPO_MATCHES, TYPO_WORD, typoNeighbours } from '../fixtures/typo-neighbours';
import { standInBaseUrl } from './stand-in';

/** The continents the tests read from, and the replica region that serves each. */
const REGION_OF: Record<string, ReplicaRegion> = { EU: 'weur', AS: 'apac', NA: 'enam' };

interface Read {
  servedBy: string | null;
  total: number;
  ids: string[];
  /** The hybrid part of the answer (`{ ratio }`, or a fallback saying why it answered by keyword). */
  semantic?: unknown;
}

/** A search over HTTP from a continent (as Cloudflare sets `request.cf.continent`); `fresh` sends `Cache-Control: no-cache`. */
async function searchFrom(app: FeedingApp, continent: string, q = '', { fresh = true, query = '' } = {}): Promise<Read> {
  const res = await readFrom(app, continent, `${app.tenant}/${app.code}?q=${encodeURIComponent(q)}&rows=100&facets=${query}`, fresh);
  const body = await json(res);
  return {
    servedBy: res.headers.get('X-Search-Replica'),
    total: body.result.total,
    ids: body.result.documents.map((d: { id: string }) => d.id),
    ...(body.result.semantic ? { semantic: body.result.semantic } : {}),
  };
}

/** A suggest over HTTP from a continent, without the edge cache: who answered and the suggested texts. */
async function suggestFrom(app: FeedingApp, continent: string, q: string): Promise<{ servedBy: string | null; values: string[] }> {
  const res = await readFrom(app, continent, `suggest/${app.tenant}/${app.code}?q=${encodeURIComponent(q)}&rows=10`, true);
  const body = await json(res);
  return { servedBy: res.headers.get('X-Search-Replica'), values: body.suggestions.map((s: { value: string }) => s.value) };
}

async function readFrom(app: FeedingApp, continent: string, path: string, fresh: boolean): Promise<Response> {
  const headers = fresh ? { 'Cache-Control': 'no-cache' } : undefined;
  return expectOk(exports.default.fetch(new Request(`${BASE}/api/v1/search/${path}`, { headers, cf: { continent } })));
}

/** The replica in `region` of the app's shard `shard` (shard 0: the app's one object when it has one shard). */
function replicaStub(app: FeedingApp, region: ReplicaRegion, shard = 0) {
  return env.SEARCH_APP.get(env.SEARCH_APP.idFromName(replicaName(shardName(app.tenant, app.code, shard), region)));
}

async function feed(app: FeedingApp, entries: unknown[]): Promise<void> {
  const res = await bulk(app, entries);
  expect(res.status).toBe(200);
  await allSettled(
    app,
    (await json(res)).documents.map((d: { id: number }) => d.id),
    { staged: true },
  );
}

function packages(prefix: string, count: number, word: string) {
  return Array.from({ length: count }, (_, i) => envelope(`${prefix}${i}`, { name: `${prefix}${i}`, description: `${word} package ${i}` }));
}

/** What a replicated app starts with: its shards (set by a full feed's swap when more than 1), schema, other settings, documents. */
interface ReplicatedSetup {
  shards?: number;
  schema?: unknown;
  settings?: Record<string, unknown>;
  entries: unknown[];
}

/** An app with replicas in `regions`, fed `entries`, each replica (of each shard) serving: its copy made and caught up. */
async function appWithReplicas(regions: ReplicaRegion[], { shards = 1, schema, settings, entries }: ReplicatedSetup): Promise<FeedingApp> {
  const app = await feedingApp(schema);
  const body = { ...settings, replicas: regions, ...(shards > 1 ? { shards } : {}) };
  await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body }));
  if (shards > 1) expect((await fullFeed(app, 'start')).status).toBe(200);
  await feed(app, entries);
  if (shards > 1) {
    expect((await fullFeed(app, 'end')).status).toBe(200);
    await waitFor(
      () => app.searchApp.layout(),
      ({ layout }) => layout.shards === shards,
    );
  }
  for (const [continent, region] of Object.entries(REGION_OF).filter(([, r]) => regions.includes(r))) {
    await waitFor(
      () => searchFrom(app, continent),
      (read) => read.servedBy === Array(shards).fill(region).join(',') && read.total === entries.length,
    );
  }
  return app;
}

/** An app of one object with replicas in `regions`, fed `count` documents. */
async function replicatedApp(regions: ReplicaRegion[], count = 30): Promise<FeedingApp> {
  return appWithReplicas(regions, { entries: packages('pkg', count, 'alpha') });
}

/**
 * Swaps 25 new documents in for the app's 40 (prefix `pkg`) by a full feed while reading from every continent, until
 * every replica answers the new dataset: each answer holds the old documents only or the new ones only.
 */
async function expectWholeSwap(app: FeedingApp): Promise<void> {
  expect((await fullFeed(app, 'start')).status).toBe(200);
  await feed(app, packages('new', 25, 'beta'));
  const round = () => Promise.all(Object.keys(REGION_OF).map((continent) => searchFrom(app, continent, '', { fresh: false })));
  const reads: Read[] = await round();
  let swapped = false;
  const reading = (async () => {
    while (!swapped) reads.push(...(await round()));
  })();
  expect((await fullFeed(app, 'end')).status).toBe(200);
  // Edge-cache hits name no copy; every other answer comes from the replicas of every shard.
  await waitFor(round, (answers) => answers.every((read) => read.total === 25 && !read.servedBy?.includes('primary')));
  swapped = true;
  await reading;
  for (const read of reads) {
    const prefixes = new Set(read.ids.map((id) => id.replace(/\d+$/, '')));
    expect(read.total === 40 ? ['pkg'] : read.total === 25 ? ['new'] : []).toEqual([...prefixes]);
  }
  expect(reads.some((read) => read.total === 40)).toBe(true);
  expect(reads.some((read) => read.total === 25)).toBe(true);
}

describe('read replicas', () => {
  it('an app without replicas reads from its primary and says nothing about replicas', async () => {
    const app = await feedingApp();
    await feed(app, packages('pkg', 3, 'alpha'));
    const read = await searchFrom(app, 'EU', 'alpha');
    expect(read).toMatchObject({ servedBy: null, total: 3 });
  });

  it('validates the replica regions of the admin PUT', async () => {
    const app = await feedingApp();
    const path = `/api/v1/admin/searchapps/${app.tenant}/${app.code}`;
    const bad = await call('PUT', path, { token: ADMIN_TOKEN, body: { replicas: ['weur', 'mars'] } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details[0].path).toBe('replicas.1');
    expect((await call('PUT', path, { token: ADMIN_TOKEN, body: { replicas: ['weur', 'weur'] } })).status).toBe(400);
    const good = await json(await expectOk(call('PUT', path, { token: ADMIN_TOKEN, body: { replicas: ['weur', 'apac'] } })));
    expect(good.replicas).toEqual(['weur', 'apac']);
  });

  it('copies the primary into a replica per region and pushes every change to each of them', async () => {
    const app = await replicatedApp(['weur', 'apac', 'enam']);
    // A continent no replica is near reads from the primary.
    expect(await searchFrom(app, 'AN', 'alpha')).toMatchObject({ servedBy: 'primary', total: 30 });

    await feed(app, [envelope('fresh', { name: 'fresh', description: 'zebrafish toolkit' })]);
    const { seq } = await app.searchApp.stats();
    // Without any read, the primary's notice brings every replica to its version.
    for (const region of ['weur', 'apac', 'enam'] as const) {
      await waitFor(
        () => replicaStub(app, region).stats(),
        (stats) => stats.seq === seq,
      );
    }
    for (const [continent, region] of Object.entries(REGION_OF)) {
      expect(await searchFrom(app, continent, 'zebrafish')).toEqual({ servedBy: region, total: 1, ids: ['fresh'] });
    }
  });

  it('bypasses a replica that missed a change: the primary answers until the replica caught up', async () => {
    const app = await replicatedApp(['weur', 'apac']);
    // The primary's notices no longer reach the European replica (as if they were lost).
    await runInDurableObject(app.searchApp.stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE meta SET value = ? WHERE key = 'replicas'`, JSON.stringify([replicaName(app.searchApp.name, 'apac')]));
    });
    await feed(app, [envelope('late', { name: 'late', description: 'quokka viewer' })]);
    const { seq } = await app.searchApp.stats();
    await waitFor(
      () => replicaStub(app, 'apac').stats(),
      (stats) => stats.seq === seq,
    );
    expect((await replicaStub(app, 'weur').stats()).seq).toBeLessThan(seq);

    expect(await searchFrom(app, 'EU', 'quokka')).toEqual({ servedBy: 'primary', total: 1, ids: ['late'] });
    // That read asked the replica to catch up; then it answers again, with the change.
    await waitFor(
      () => searchFrom(app, 'EU', 'quokka'),
      (read) => read.servedBy === 'weur',
    );
    expect(await searchFrom(app, 'EU', 'quokka')).toEqual({ servedBy: 'weur', total: 1, ids: ['late'] });
  });

  it('evicted replicas under feeding and reads come back without ever answering an older index', async () => {
    const regions = ['weur', 'apac', 'enam'] as const;
    const app = await replicatedApp([...regions], 10);
    for (let round = 1; round <= 4; round++) {
      const fed = feed(app, packages(`load${round}-`, 5, 'gecko'));
      await Promise.all(regions.map((region) => evictDurableObject(replicaStub(app, region))));
      // Reads while the batch is being applied see either all of its documents or none (one version each).
      const during = await Promise.all(Object.keys(REGION_OF).map((continent) => searchFrom(app, continent, 'gecko')));
      for (const read of during) expect([5 * (round - 1), 5 * round]).toContain(read.total);
      await fed;
      for (const continent of Object.keys(REGION_OF)) {
        expect((await searchFrom(app, continent, 'gecko')).total).toBe(5 * round);
      }
    }
    for (const [continent, region] of Object.entries(REGION_OF)) {
      await waitFor(
        () => searchFrom(app, continent, 'gecko'),
        (read) => read.servedBy === region && read.total === 20,
      );
    }
  });

  it('a full-feed swap reaches the replicas whole: no read sees a mix of the old and the new dataset', async () => {
    await expectWholeSwap(await replicatedApp(['weur', 'apac', 'enam'], 40));
  });

  it('copies an index of several pages, paced, reads answered by the primary until the copy is complete', async () => {
    const app = await feedingApp();
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { replicas: ['weur'] } }));
    await feed(app, packages('pkg', 1_234, 'alpha'));
    // The first read starts the copy (pages of REPLICA_PAGE documents) and is answered by the primary.
    const fromPrimary = await searchFrom(app, 'EU', 'alpha');
    expect(fromPrimary).toMatchObject({ servedBy: 'primary', total: 1_234 });
    const copied = await waitFor(
      () => searchFrom(app, 'EU', 'alpha'),
      (read) => read.servedBy === 'weur',
    );
    expect(copied).toEqual({ ...fromPrimary, servedBy: 'weur' });
    expect(await replicaStub(app, 'weur').stats()).toMatchObject({ documents: 1_234, indexed: 1_234 });
  });

  it('a removed replica is read no more, does not copy again while isolates may still list it, and its storage goes', async () => {
    const app = await replicatedApp(['weur', 'apac']);
    const path = `/api/v1/admin/searchapps/${app.tenant}/${app.code}`;
    await expectOk(call('PUT', path, { token: ADMIN_TOKEN, body: { replicas: ['apac'] } }));
    expect((await replicaStub(app, 'weur').stats()).documents).toBe(0);
    expect((await replicaStub(app, 'apac').stats()).documents).toBe(30);
    // This isolate may still list weur (it keeps an app's row for 10 s): the removed replica refuses, the primary answers.
    expect(await searchFrom(app, 'EU', 'alpha')).toMatchObject({ servedBy: 'primary', total: 30 });
    const weur = { primary: app.searchApp.name, name: replicaName(app.searchApp.name, 'weur') };
    expect(await replicaStub(app, 'weur').replicaAnswer(weur, { kind: 'search', request: { page: 1, rows: 10 } }, 0)).toBeNull();
    expect(await metaKeys(replicaStub(app, 'weur'))).toEqual(['retiredUntil']);
    expect(await metaKeys(app.searchApp.stub)).toContain('replicas');
    expect(await registeredReplicas(app)).toEqual([replicaName(app.searchApp.name, 'apac')]);
    // The alarm before the retirement's end keeps the mark; the one after it (as if a minute passed) deletes it.
    expect(await runDurableObjectAlarm(replicaStub(app, 'weur'))).toBe(true);
    expect(await metaKeys(replicaStub(app, 'weur'))).toEqual(['retiredUntil']);
    await runInDurableObject(replicaStub(app, 'weur'), (_instance, state) => {
      state.storage.sql.exec(`UPDATE meta SET value = ? WHERE key = 'retiredUntil'`, JSON.stringify(Date.now() - 1));
    });
    expect(await runDurableObjectAlarm(replicaStub(app, 'weur'))).toBe(true);
    expect(await metaKeys(replicaStub(app, 'weur'))).toEqual([]);

    // Listed again, the region gets a new copy.
    await expectOk(call('PUT', path, { token: ADMIN_TOKEN, body: { replicas: ['apac', 'weur'] } }));
    await waitFor(
      () => searchFrom(app, 'EU', 'alpha'),
      (read) => read.servedBy === 'weur' && read.total === 30,
    );
    await expectOk(call('DELETE', path, { token: ADMIN_TOKEN }));
    for (const region of ['weur', 'apac'] as const) {
      expect((await replicaStub(app, region).stats()).documents).toBe(0);
      expect(await metaKeys(replicaStub(app, region))).toEqual(['retiredUntil']);
    }
  });
});

/** The keys of an object's stored metadata; none when its storage was deleted, tables too. */
async function metaKeys(stub: DurableObjectStub): Promise<string[]> {
  return runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    if (!sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).toArray().length) return [];
    return sql
      .exec<{ key: string }>('SELECT key FROM meta ORDER BY key')
      .toArray()
      .map((row) => row.key);
  });
}

/** The bytes of an object's stored share of the other shards' statistics, as one array. */
async function otherShardsOf(stub: DurableObjectStub): Promise<number[]> {
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql
      .exec<{ data: ArrayBuffer }>('SELECT data FROM others_chunks ORDER BY n')
      .toArray()
      .flatMap((row) => [...new Uint8Array(row.data)]),
  );
}

/** Whether the row planted in a replica's documents is still there (a copy would have cleared it). */
async function hasSentinel(stub: DurableObjectStub): Promise<boolean> {
  return runInDurableObject(
    stub,
    (_instance, state) => state.storage.sql.exec(`SELECT 1 FROM documents WHERE id = 'copy-sentinel'`).toArray().length === 1,
  );
}

/** The replicas the app's primary tells of new versions. */
async function registeredReplicas(app: FeedingApp): Promise<string[]> {
  return runInDurableObject(app.searchApp.stub, (_instance, state) =>
    JSON.parse(state.storage.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'replicas'`).one().value),
  );
}

/** Ids of `prefix`-named documents that land on each of `shards` shards, `perShard` each. */
function idsPerShard(prefix: string, shards: number, perShard: number): string[][] {
  const ids: string[][] = Array.from({ length: shards }, () => []);
  for (let i = 0; ids.some((list) => list.length < perShard); i++) {
    const list = ids[shardOf(`${prefix}${i}`, shards)];
    if (list.length < perShard) list.push(`${prefix}${i}`);
  }
  return ids;
}

const SHARDS = 3;

/** An app of `SHARDS` shards with replicas in `regions`, fed `count` documents. */
async function shardedReplicatedApp(regions: ReplicaRegion[], count = 30): Promise<FeedingApp> {
  return appWithReplicas(regions, { shards: SHARDS, entries: packages('pkg', count, 'alpha') });
}

describe('read replicas of a sharded app', () => {
  it("reads every shard from that shard's nearest replica, and a change reaches every shard's replicas", async () => {
    const app = await shardedReplicatedApp(['weur', 'apac']);
    const everyShard = (region: string) => Array(SHARDS).fill(region).join(',');
    // Each shard has a replica per region, holding that shard's documents only.
    for (let shard = 0; shard < SHARDS; shard++) {
      const primary = await app.searchApp.shard(shard).stats();
      expect(primary.documents).toBeGreaterThan(0);
      for (const region of ['weur', 'apac'] as const) {
        expect((await replicaStub(app, region, shard).stats()).documents).toBe(primary.documents);
      }
    }

    const fresh = idsPerShard('zebra', SHARDS, 2).flat();
    await feed(
      app,
      fresh.map((id) => envelope(id, { name: id, description: 'zebrafish toolkit' })),
    );
    // Without any read, each shard's primary brings its replicas to its version.
    for (let shard = 0; shard < SHARDS; shard++) {
      const { seq } = await app.searchApp.shard(shard).stats();
      for (const region of ['weur', 'apac'] as const) {
        await waitFor(
          () => replicaStub(app, region, shard).stats(),
          (stats) => stats.seq === seq,
        );
      }
    }
    const fromPrimaries = await searchFrom(app, 'AN', 'zebrafish');
    expect(fromPrimaries).toMatchObject({ servedBy: 'primary', total: fresh.length });
    expect(fromPrimaries.ids.sort()).toEqual([...fresh].sort());
    const suggested = await suggestFrom(app, 'AN', 'zebr');
    expect(suggested.values).toContain('zebrafish');
    for (const [continent, region] of Object.entries(REGION_OF).filter(([, r]) => r !== 'enam')) {
      // The same merged page as the primaries answer, ranked the same.
      expect(await searchFrom(app, continent, 'zebrafish')).toEqual({ ...fromPrimaries, servedBy: everyShard(region) });
      expect(await suggestFrom(app, continent, 'zebr')).toEqual({ ...suggested, servedBy: everyShard(region) });
    }
  });

  it("shard replicas answer again with the whole index's typo cutoffs as the primaries do: one index's page", async () => {
    const entries = typoNeighbours();
    const [app, single] = await Promise.all([appWithReplicas(['weur'], { shards: SHARDS, entries }), appWithReplicas([], { entries })]);
    const expected = await searchFrom(single, 'EU', TYPO_WORD);
    expect(expected.total).toBe(TYPO_MATCHES);
    expect(await searchFrom(app, 'EU', TYPO_WORD)).toEqual({ ...expected, servedBy: Array(SHARDS).fill('weur').join(',') });
  });

  it('a shard replica that missed a change falls back to its shard primary while the other shards stay on their replicas', async () => {
    const app = await shardedReplicatedApp(['weur']);
    // Shard 1's primary no longer tells its European replica of new versions (as if the notices were lost).
    await runInDurableObject(app.searchApp.shard(1), (_instance, state) => {
      state.storage.sql.exec(`UPDATE meta SET value = '[]' WHERE key = 'replicas'`);
    });
    const late = idsPerShard('late', SHARDS, 1).flat();
    await feed(
      app,
      late.map((id) => envelope(id, { name: id, description: 'quokka viewer' })),
    );
    for (const shard of [0, 2]) {
      const { seq } = await app.searchApp.shard(shard).stats();
      await waitFor(
        () => replicaStub(app, 'weur', shard).stats(),
        (stats) => stats.seq === seq,
      );
    }
    expect((await replicaStub(app, 'weur', 1).stats()).seq).toBeLessThan((await app.searchApp.shard(1).stats()).seq);

    const read = await searchFrom(app, 'EU', 'quokka');
    expect(read.servedBy).toBe('weur,primary,weur');
    expect(read.ids.sort()).toEqual([...late].sort());
    // That read asked shard 1's replica to catch up; then every shard reads from its replica again.
    const caughtUp = await waitFor(
      () => searchFrom(app, 'EU', 'quokka'),
      (answer) => answer.servedBy === 'weur,weur,weur',
    );
    expect(caughtUp.ids.sort()).toEqual([...late].sort());
  });

  it("a cross-shard full-feed swap reaches every shard's replicas whole: no read mixes the old and the new dataset", async () => {
    await expectWholeSwap(await shardedReplicatedApp(['weur', 'apac', 'enam'], 40));
  });

  it("a statistics exchange reaches every shard's replicas as a change, not a whole copy: they rank as the primaries, evicted too", async () => {
    const regions = ['weur', 'apac'] as const;
    const app = await shardedReplicatedApp([...regions]);
    // 'quokka' is common on shard 0 and rare on the others: until the shards exchange statistics each weighs it by its
    // own documents, so the exchange changes the ranking.
    const [common, ...rare] = idsPerShard('quokka', SHARDS, 8);
    await feed(app, [
      ...common.map((id) => envelope(id, { name: id, description: 'quokka garden' })),
      ...rare.map((ids) => envelope(ids[0], { name: ids[0], description: 'quokka garden viewer' })),
    ]);
    const rankedByPrimaries = async () => (await searchFrom(app, 'AN', 'quokka')).ids;
    const before = await rankedByPrimaries();
    // A copy starts by clearing the replica's documents: a row only the replica holds tells whether one happened.
    const everyReplica = regions.flatMap((region) => Array.from({ length: SHARDS }, (_, shard) => replicaStub(app, region, shard)));
    for (const replica of everyReplica) {
      await runInDurableObject(replica, (_instance, state) => {
        state.storage.sql.exec(`INSERT INTO documents (id, payload, seq, op) VALUES ('copy-sentinel', NULL, 0, 0)`);
      });
    }

    await app.searchApp.shareStatistics();
    const after = await rankedByPrimaries();
    expect(after).not.toEqual(before);
    expect(after.length).toBe(common.length + rare.length);
    for (let shard = 0; shard < SHARDS; shard++) {
      const primary = app.searchApp.shard(shard);
      const { seq } = await primary.stats();
      const share = await otherShardsOf(primary);
      expect(share.length).toBeGreaterThan(0);
      for (const region of regions) {
        const replica = replicaStub(app, region, shard);
        await waitFor(
          () => replica.stats(),
          (stats) => stats.seq === seq,
        );
        expect(await otherShardsOf(replica)).toEqual(share);
        expect(await hasSentinel(replica)).toBe(true);
      }
    }
    for (const [continent, region] of Object.entries(REGION_OF).filter(([, r]) => r !== 'enam')) {
      expect(await searchFrom(app, continent, 'quokka')).toMatchObject({ servedBy: Array(SHARDS).fill(region).join(','), ids: after });
    }
    // Evicted, the replicas load the share they stored with their index: the same ranking.
    await Promise.all(everyReplica.map((replica) => evictDurableObject(replica)));
    for (const [continent, region] of Object.entries(REGION_OF).filter(([, r]) => r !== 'enam')) {
      const read = await waitFor(
        () => searchFrom(app, continent, 'quokka'),
        (answer) => answer.servedBy === Array(SHARDS).fill(region).join(','),
      );
      expect(read.ids).toEqual(after);
    }
    for (const replica of everyReplica) expect(await hasSentinel(replica)).toBe(true);
  });

  it("removing a region deletes that replica of every shard; deleting the app deletes every shard's replicas", async () => {
    const app = await shardedReplicatedApp(['weur', 'apac'], 12);
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { replicas: ['apac'] } }));
    for (let shard = 0; shard < SHARDS; shard++) {
      expect((await replicaStub(app, 'weur', shard).stats()).documents).toBe(0);
      expect((await replicaStub(app, 'apac', shard).stats()).documents).toBe((await app.searchApp.shard(shard).stats()).documents);
    }
    await expectOk(call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN }));
    for (let shard = 0; shard < SHARDS; shard++) expect((await replicaStub(app, 'apac', shard).stats()).documents).toBe(0);
  });
});

/** Vehicles, and others, described in words the stand-in embedder's concepts tell apart (test/search/concept-vectors.ts). */
const semanticSchema = {
  fields: [
    { code: 'name', dataType: 'string', searchMode: 'fuzzy', weight: 5, display: true },
    { code: 'description', dataType: 'string', display: true, semantic: true },
  ],
};
const vehicles = [
  ['racer', 'vehicle driving simulator'],
  ['smbd', 'windows fileserver'],
  ['jukebox', 'song player'],
  ['tetris', 'arcade puzzle'],
  ['inkscape', 'drawing pictures'],
  ['fetchmail', 'inbox letters'],
].map(([name, description]) => envelope(name, { name, description }));

/** An app with an embedder (the stand-in) and replicas in `weur`, fed the vehicles. */
async function semanticReplicatedApp(shards: number): Promise<FeedingApp> {
  const embedder = { provider: 'openai', model: 'concepts', baseUrl: standInBaseUrl(uniqueCode('rep')) };
  return appWithReplicas(['weur'], { shards, schema: semanticSchema, settings: { embedder }, entries: vehicles });
}

describe('hybrid search from read replicas', () => {
  for (const shards of [1, SHARDS]) {
    it(`replicas copy the vectors and answer hybrid searches as the primaries do (${shards} shards)`, async () => {
      const app = await semanticReplicatedApp(shards);
      const servedBy = (region: string) => Array(shards).fill(region).join(',');
      const byVector = { query: '&semanticRatio=1' };
      // "automobile" shares no word with any document: vectors rank them (a copy without them would answer a fallback).
      const fromPrimary = await searchFrom(app, 'AN', 'automobile', byVector);
      expect(fromPrimary).toMatchObject({ servedBy: 'primary', semantic: { ratio: 1 } });
      // One index ranks the racer first (shards normalize vector scores each over their own neighbours).
      if (shards === 1) expect(fromPrimary.ids[0]).toBe('racer');
      expect(await searchFrom(app, 'EU', 'automobile', byVector)).toEqual({ ...fromPrimary, servedBy: servedBy('weur') });

      // A change's vector reaches the replicas through the change log.
      await feed(app, [envelope('hauler', { name: 'hauler', description: 'motor vehicles' })]);
      const changed = await waitFor(
        () => searchFrom(app, 'EU', 'automobile', byVector),
        (read) => read.servedBy === servedBy('weur') && read.ids.includes('hauler'),
      );
      if (shards === 1) expect(changed.ids.slice(0, 2).sort()).toEqual(['hauler', 'racer']);
      expect(changed.semantic).toEqual({ ratio: 1 });
      expect(changed).toEqual({ ...(await searchFrom(app, 'AN', 'automobile', byVector)), servedBy: servedBy('weur') });

      // An evicted replica hands the read that finds it not loaded to its primary, then loads its own snapshot and
      // the changes after it, vectors included.
      for (let shard = 0; shard < shards; shard++) await evictDurableObject(replicaStub(app, 'weur', shard));
      expect(await searchFrom(app, 'EU', 'automobile', byVector)).toEqual({ ...changed, servedBy: servedBy('primary') });
      const reloaded = await waitFor(
        () => searchFrom(app, 'EU', 'automobile', byVector),
        (read) => read.servedBy === servedBy('weur'),
      );
      expect(reloaded).toEqual(changed);
    });
  }
});
