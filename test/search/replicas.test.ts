import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { replicaName, type ReplicaRegion } from '../../src/search/replica-regions';
import { ADMIN_TOKEN, BASE, call, expectOk, json, waitFor } from '../helpers';
import { allSettled, bulk, envelope, feedingApp, fullFeed, type FeedingApp } from '../feeding/helpers';

/** The continents the tests read from, and the replica region that serves each. */
const REGION_OF: Record<string, ReplicaRegion> = { EU: 'weur', AS: 'apac', NA: 'enam' };

interface Read {
  servedBy: string | null;
  total: number;
  ids: string[];
}

/** A search over HTTP from a continent (as Cloudflare sets `request.cf.continent`); `fresh` sends `Cache-Control: no-cache`. */
async function searchFrom(app: FeedingApp, continent: string, q = '', { fresh = true } = {}): Promise<Read> {
  const headers = fresh ? { 'Cache-Control': 'no-cache' } : undefined;
  const request = new Request(`${BASE}/api/v1/search/${app.tenant}/${app.code}?q=${encodeURIComponent(q)}&rows=100&facets=`, {
    headers,
    cf: { continent },
  });
  const res = await expectOk(exports.default.fetch(request));
  const body = await json(res);
  return {
    servedBy: res.headers.get('X-Search-Replica'),
    total: body.result.total,
    ids: body.result.documents.map((d: { id: string }) => d.id),
  };
}

function replicaStub(app: FeedingApp, region: ReplicaRegion) {
  return env.SEARCH_APP.get(env.SEARCH_APP.idFromName(replicaName(app.searchApp.name, region)));
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

/** An app with replicas in `regions`, fed `count` documents, each replica serving (its copy made and caught up). */
async function replicatedApp(regions: ReplicaRegion[], count = 30): Promise<FeedingApp> {
  const app = await feedingApp();
  await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { replicas: regions } }));
  await feed(app, packages('pkg', count, 'alpha'));
  for (const [continent, region] of Object.entries(REGION_OF).filter(([, r]) => regions.includes(r))) {
    await waitFor(
      () => searchFrom(app, continent),
      (read) => read.servedBy === region && read.total === count,
    );
  }
  return app;
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
    const app = await replicatedApp(['weur', 'apac', 'enam'], 40);
    expect((await fullFeed(app, 'start')).status).toBe(200);
    await feed(app, packages('new', 25, 'beta'));
    const round = () => Promise.all(Object.keys(REGION_OF).map((continent) => searchFrom(app, continent, '', { fresh: false })));
    const reads: Read[] = await round();
    let swapped = false;
    const reading = (async () => {
      while (!swapped) reads.push(...(await round()));
    })();
    expect((await fullFeed(app, 'end')).status).toBe(200);
    await waitFor(round, (answers) => answers.every((read) => read.total === 25 && read.servedBy !== 'primary'));
    swapped = true;
    await reading;
    for (const read of reads) {
      const prefixes = new Set(read.ids.map((id) => id.replace(/\d+$/, '')));
      expect(read.total === 40 ? ['pkg'] : read.total === 25 ? ['new'] : []).toEqual([...prefixes]);
    }
    expect(reads.some((read) => read.total === 40)).toBe(true);
    expect(reads.some((read) => read.total === 25)).toBe(true);
  });

  it('removing a region deletes its replica; deleting the app deletes them all', async () => {
    const app = await replicatedApp(['weur', 'apac']);
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { replicas: ['apac'] } }));
    expect((await replicaStub(app, 'weur').stats()).documents).toBe(0);
    expect((await replicaStub(app, 'apac').stats()).documents).toBe(30);
    await expectOk(call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN }));
    expect((await replicaStub(app, 'apac').stats()).documents).toBe(0);
  });
});
