import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { recoverApp } from '../../src/feeding/recovery';
import { ADMIN_TOKEN, call, expectOk, json, waitFor } from '../helpers';
import { createDb } from '../../src/db/client';
import { allSettled, bulk, debianEnvelopes, envelope, feedingApp, fullFeed, getDocument, searchIds, type FeedingApp } from './helpers';

/** Feeds and waits until the consumer processed everything (staged operations stay PREPARED until the swap). */
async function feedAndSettle(app: FeedingApp, entries: unknown[]): Promise<number[]> {
  const res = await bulk(app, entries);
  expect(res.status).toBe(200);
  const ids = (await json(res)).documents.map((d: { id: number }) => d.id);
  await allSettled(app, ids, { staged: true });
  return ids;
}

async function status(app: FeedingApp) {
  return json(await call('GET', `/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, { token: app.feed }));
}

/** Waits for the swap that End triggers once the cycle's operations are processed. */
async function swapped(app: FeedingApp) {
  await waitFor(
    () => status(app),
    (current) => !current.active,
  );
}

describe('full feed state table', () => {
  it('no cycle: end and cancel answer 404; start answers 200; a second start answers 409', async () => {
    const app = await feedingApp();
    expect((await fullFeed(app, 'end')).status).toBe(404);
    expect((await fullFeed(app, 'cancel')).status).toBe(404);
    const start = await fullFeed(app, 'start');
    expect(start.status).toBe(200);
    expect(await json(start)).toMatchObject({ message: 'Full feed started', cycleId: 1, state: 'ACTIVE' });
    const again = await fullFeed(app, 'start');
    expect(again.status).toBe(409);
    expect((await json(again)).message).toMatch(/already in progress/);
    expect(await status(app)).toMatchObject({ active: true, cycleId: 1, state: 'ACTIVE' });
  });

  it('end swaps in the documents sent since start and removes the others', async () => {
    const app = await feedingApp();
    await feedAndSettle(app, [envelope('old', { name: 'oldpkg' }), envelope('kept', { name: 'keptpkg' })]);
    expect((await fullFeed(app, 'start')).status).toBe(200);
    const staged = await feedAndSettle(app, [envelope('kept', { name: 'keptpkg renewed' }), envelope('new', { name: 'newpkg' })]);
    // Staged, not live: the live index still serves the old data.
    expect([...(await allSettled(app, staged, { staged: true })).values()]).toEqual(['PREPARED', 'PREPARED']);
    expect(await searchIds(app, 'newpkg')).toEqual([]);
    expect(await searchIds(app, 'oldpkg')).toEqual(['old']);

    const end = await fullFeed(app, 'end');
    expect(end.status).toBe(200);
    await swapped(app);
    expect((await getDocument(app, 'old')).status).toBe(404);
    expect(await json(await getDocument(app, 'kept'))).toEqual([{ id: 'kept', name: 'keptpkg renewed' }]);
    expect(await searchIds(app, 'newpkg')).toEqual(['new']);
    expect(await searchIds(app, 'oldpkg')).toEqual([]);
    const states = await allSettled(app, staged);
    expect([...states.values()]).toEqual(['FINISHED', 'FINISHED']);
    expect((await fullFeed(app, 'end')).status).toBe(404);
    expect((await fullFeed(app, 'start')).status).toBe(200);
  });

  it('cancel discards the staged documents, cancels their entries and leaves the live index untouched', async () => {
    const app = await feedingApp();
    await feedAndSettle(app, [envelope('live', { name: 'livepkg' })]);
    const before = await searchIds(app);
    expect((await fullFeed(app, 'start')).status).toBe(200);
    const res = await bulk(app, [envelope('staged', { name: 'stagedpkg' }), envelope('live', { name: 'changed' })]);
    const ids = (await json(res)).documents.map((d: { id: number }) => d.id);
    const cancel = await fullFeed(app, 'cancel');
    expect(cancel.status).toBe(200);
    expect(await json(cancel)).toMatchObject({ state: 'CANCELED' });
    const states = await allSettled(app, ids);
    expect([...states.values()]).toEqual(['CANCELED', 'CANCELED']);
    expect(await searchIds(app)).toEqual(before);
    expect(await json(await getDocument(app, 'live'))).toEqual([{ id: 'live', name: 'livepkg' }]);
    expect((await getDocument(app, 'staged')).status).toBe(404);
    expect(await status(app)).toMatchObject({ active: false, state: 'NONE' });
  });

  it('survives eviction of the Durable Object in the middle of a cycle', async () => {
    const app = await feedingApp();
    const live = debianEnvelopes.slice(0, 300);
    await feedAndSettle(app, live);
    expect(await runDurableObjectAlarm(app.searchApp.stub)).toBe(true); // the snapshot the eviction below loads
    const liveResults = await searchIds(app, 'library');
    expect(liveResults.length).toBeGreaterThan(0);

    expect((await fullFeed(app, 'start')).status).toBe(200);
    const next = debianEnvelopes.slice(200, 700);
    await feedAndSettle(app, next.slice(0, 250));
    await evictDurableObject(app.searchApp.stub);
    // Same live results after the eviction, from the persisted snapshot and documents.
    expect(await searchIds(app, 'library')).toEqual(liveResults);
    expect(await status(app)).toMatchObject({ active: true, stagedDocuments: 250 });
    await feedAndSettle(app, next.slice(250));
    await evictDurableObject(app.searchApp.stub);
    expect((await fullFeed(app, 'end')).status).toBe(200);
    await swapped(app);

    const ids = new Set(await searchIds(app, '', 1000));
    expect(ids.size).toBe(next.length);
    expect(next.every((e) => ids.has(e.header.id))).toBe(true);
    expect(ids.has(debianEnvelopes[0].header.id)).toBe(false);
    await evictDurableObject(app.searchApp.stub);
    expect(new Set(await searchIds(app, '', 1000))).toEqual(ids);
  });
});

describe('batches sent while a full feed is ending', () => {
  const remove = (id: string) => ({ header: { id, action: 'delete' } });

  async function appId(app: FeedingApp): Promise<number> {
    return (await env.DB.prepare('SELECT id FROM search_apps WHERE tenant_code = ?').bind(app.tenant).first<{ id: number }>())!.id;
  }

  async function setShards(app: FeedingApp, shards: number) {
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards } }));
  }

  /**
   * `old`, `kept` and `gone` live (by a full feed into `liveShards`), then a full feed into `cycleShards` sending `kept` and
   * `new` and one entry (`straggler`) whose queue message was lost, so that End (the route) answers ENDING and the swap
   * waits for it; then a batch after End, before the swap: `late`, `later` (shard 2 of 3: outside a 2-shard live layout),
   * `kept` again and a delete of `new`.
   */
  async function batchBetweenEndAndSwap(liveShards: number, cycleShards: number) {
    const app = await feedingApp();
    await setShards(app, liveShards);
    expect((await fullFeed(app, 'start')).status).toBe(200);
    await feedAndSettle(app, [
      envelope('old', { name: 'oldpkg' }),
      envelope('kept', { name: 'v1' }),
      envelope('gone', { name: 'gonepkg' }),
    ]);
    expect((await fullFeed(app, 'end')).status).toBe(200);
    await swapped(app);
    expect((await searchIds(app)).sort()).toEqual(['gone', 'kept', 'old']);
    await feedAndSettle(app, [remove('gone')]);

    await setShards(app, cycleShards);
    const { cycleId } = await json(await fullFeed(app, 'start'));
    const staged = await feedAndSettle(app, [envelope('kept', { name: 'v2' }), envelope('new', { name: 'newpkg' })]);
    const straggler = await env.DB.prepare(
      `INSERT INTO feeding_operations (app_id, document_id, operation, state, type, cycle_id, payload, sent_at)
       VALUES (?, 'straggler', 'update', 'CREATED', 'svc', ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-60 seconds')) RETURNING id`,
    )
      .bind(await appId(app), cycleId, JSON.stringify({ name: 'stragglerpkg' }))
      .first<{ id: number }>();
    const end = await fullFeed(app, 'end');
    expect(await json(end)).toMatchObject({ state: 'ENDING' });

    const late = await feedAndSettle(app, [
      envelope('late', { name: 'latepkg' }),
      envelope('later', { name: 'laterpkg' }),
      envelope('kept', { name: 'v3' }),
      remove('new'),
    ]);
    expect([...(await allSettled(app, late)).values()]).toEqual(['FINISHED', 'FINISHED', 'FINISHED', 'FINISHED']);
    expect(await json(await getDocument(app, 'kept'))).toEqual([{ id: 'kept', name: 'v3' }]);

    // The recovery check sends the lost entry again; the consumer stages it, and the cycle, drained, swaps.
    await recoverApp(env, createDb(env.DB), { appId: await appId(app), stalled: true, appliedUpTo: 0, requestedAt: Date.now() });
    await swapped(app);
    return { app, staged: [...staged, straggler!.id], late };
  }

  async function expectLateBatchSurvived({ app, staged, late }: Awaited<ReturnType<typeof batchBetweenEndAndSwap>>) {
    expect(await status(app)).toMatchObject({ active: false, state: 'NONE' });
    expect([...(await allSettled(app, staged)).values()]).toEqual(['FINISHED', 'FINISHED', 'FINISHED']);
    expect([...(await allSettled(app, late)).values()]).toEqual(['FINISHED', 'FINISHED', 'FINISHED', 'FINISHED']);
    // Sent after End: live, and newer than the cycle's value of the same document.
    expect((await searchIds(app)).sort()).toEqual(['kept', 'late', 'later', 'straggler']);
    expect(await json(await getDocument(app, 'kept'))).toEqual([{ id: 'kept', name: 'v3' }]);
    expect(await json(await getDocument(app, 'late'))).toEqual([{ id: 'late', name: 'latepkg' }]);
    // Sent only before Start: removed by the swap.
    expect((await getDocument(app, 'old')).status).toBe(404);
    expect((await getDocument(app, 'new')).status).toBe(404);
  }

  it('a batch accepted after End and before the swap stays live after the swap; documents sent only before Start go', async () => {
    await expectLateBatchSurvived(await batchBetweenEndAndSwap(1, 1));
  });

  it('the same when the cycle stages into 3 shards while 2 are live', async () => {
    await expectLateBatchSurvived(await batchBetweenEndAndSwap(2, 3));
  });

  it('an entry accepted before Start whose message arrives after the swap is IGNORED: the swap replaced it', async () => {
    const app = await feedingApp();
    await feedAndSettle(app, [envelope('old', { name: 'oldpkg' })]);
    // Accepted before Start (no cycle started yet: last cycle 0), its queue message lost.
    const ghost = await env.DB.prepare(
      `INSERT INTO feeding_operations (app_id, document_id, operation, state, type, last_cycle_id, payload, sent_at)
       VALUES (?, 'ghost', 'update', 'CREATED', 'svc', 0, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-60 seconds')) RETURNING id`,
    )
      .bind(await appId(app), JSON.stringify({ name: 'ghostpkg' }))
      .first<{ id: number }>();
    expect((await fullFeed(app, 'start')).status).toBe(200);
    await feedAndSettle(app, [envelope('new', { name: 'newpkg' })]);
    expect((await fullFeed(app, 'end')).status).toBe(200);
    await swapped(app);

    await recoverApp(env, createDb(env.DB), { appId: await appId(app), stalled: true, appliedUpTo: 0, requestedAt: Date.now() });
    expect([...(await allSettled(app, [ghost!.id])).values()]).toEqual(['IGNORED']);
    expect(await searchIds(app)).toEqual(['new']);
  });
});

describe('full feed status counts', () => {
  /** Deletes what keeps the counts, as in an object stored before them. */
  async function forgetCounts(app: FeedingApp) {
    await runInDurableObject(app.searchApp.stub, async (_instance, state) => {
      for (const trigger of ['documents_count_replaced', 'documents_count_inserted', 'staged_count_inserted', 'staged_count_updated'])
        state.storage.sql.exec(`DROP TRIGGER ${trigger}`);
      state.storage.sql.exec('DROP TABLE live_count');
      state.storage.sql.exec('DROP TABLE staged_counts');
    });
    await evictDurableObject(app.searchApp.stub);
  }

  const remove = (id: string) => ({ header: { id, action: 'delete' } });

  it('counts live and staged documents exactly through updates, deletes and restaging, and in objects stored before the counts', async () => {
    const app = await feedingApp();
    const docs = debianEnvelopes.slice(0, 5);
    await feedAndSettle(app, docs);
    await feedAndSettle(app, [docs[0], remove(docs[1].header.id), remove('never-fed')]);
    expect(await status(app)).toMatchObject({ active: false, liveDocuments: 4 });

    expect((await fullFeed(app, 'start')).status).toBe(200);
    await feedAndSettle(app, docs.slice(0, 3));
    await feedAndSettle(app, [docs[0], remove(docs[2].header.id), remove(docs[3].header.id)]);
    expect(await status(app)).toMatchObject({ active: true, stagedDocuments: 2, liveDocuments: 4 });
    await forgetCounts(app);
    expect(await status(app)).toMatchObject({ active: true, stagedDocuments: 2, liveDocuments: 4 });
    await feedAndSettle(app, [docs[2]]);
    expect(await status(app)).toMatchObject({ stagedDocuments: 3, liveDocuments: 4 });

    expect((await fullFeed(app, 'end')).status).toBe(200);
    await swapped(app);
    expect(await status(app)).toMatchObject({ active: false, stagedDocuments: 0, liveDocuments: 3 });
    await feedAndSettle(app, [docs[4], remove(docs[0].header.id)]);
    expect(await status(app)).toMatchObject({ liveDocuments: 3 });
  });
});
