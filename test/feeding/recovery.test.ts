import { env } from 'cloudflare:workers';
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, expectOk, json, objectCallsThrough, waitFor } from '../helpers';
import { MAX_REDRIVES, rearmStaleApps, recoverApp, REFUSED } from '../../src/feeding/recovery';
import type { FeedingMessage } from '../../src/feeding/operations';
import type { FeedOperation } from '../../src/search/app-object/feeding';
import type { Env } from '../../src/env';
import worker from '../../src/index';
import { shardOf } from '../../src/search/shards';
import { indexConfigOf } from '../../src/feeding/operations';
import { createDb } from '../../src/db/client';
import { findSearchApp } from '../../src/db/queries';
import { requestCycleEnd } from '../../src/feeding/full-feed';
import { allSettled, bulk, envelope, feedingApp, fullFeed, getDocument, runRecoveryCheck, searchIds, type FeedingApp } from './helpers';

/** Outbox recovery: entries recorded in D1 whose queue messages never went out are sent again. */

async function appIdOf(app: FeedingApp): Promise<number> {
  return (await env.DB.prepare('SELECT id FROM search_apps WHERE tenant_code = ?').bind(app.tenant).first<{ id: number }>())!.id;
}

/**
 * Records entries the way acceptOperations does, minus the queue send: what is left when the process dies
 * between the D1 insert and `sendBatch`. The app's recovery is armed first, as acceptOperations does. A negative
 * `sentSecondsAgo` dates the send in the future: not due for a re-send during the test.
 */
async function lostEntries(
  app: FeedingApp,
  ids: string[],
  { cycleId = null as number | null, lastCycleId = null as number | null, sentSecondsAgo = 60, redrives = 0 } = {},
) {
  const appId = await appIdOf(app);
  await app.searchApp.noteAccepted(appId);
  const rows: number[] = [];
  for (const id of ids) {
    const row = await env.DB.prepare(
      `INSERT INTO feeding_operations (app_id, document_id, operation, state, type, cycle_id, last_cycle_id, payload, sent_at, redrives)
       VALUES (?, ?, 'update', 'CREATED', 'svc', ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?), ?) RETURNING id`,
    )
      .bind(
        appId,
        id,
        cycleId,
        lastCycleId,
        JSON.stringify({ name: id, description: `recovered ${id}` }),
        `${-sentSecondsAgo} seconds`,
        redrives,
      )
      .first<{ id: number }>();
    rows.push(row!.id);
  }
  return rows;
}

async function recoveryArmed(app: FeedingApp): Promise<boolean> {
  return runInDurableObject(app.searchApp.stub, async (_instance, state) => {
    return state.storage.sql.exec(`SELECT 1 FROM meta WHERE key = 'recoveryAt'`).toArray().length > 0;
  });
}

async function status(app: FeedingApp) {
  return json(await call('GET', `/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, { token: app.feed }));
}

/** An app whose live index holds the one document `id`, with a full feed started over it. */
async function fullFeedOverLiveDocument(id: string) {
  const app = await feedingApp();
  expect((await bulk(app, [envelope(id, { name: id })])).status).toBe(200);
  await waitFor(
    () => searchIds(app),
    (found) => found.length === 1,
  );
  const { cycleId } = await json(await fullFeed(app, 'start'));
  return { app, cycleId };
}

/** Delivers `operations` of the app through the real feeding consumer (with `through` as its environment); answers the retried ids. */
async function deliver(appId: number, operations: FeedOperation[], through: Env = env): Promise<string[]> {
  const body: FeedingMessage = { kind: 'operations', appId, operations };
  const batch = createMessageBatch<FeedingMessage>('feeding', [{ id: `m${operations[0].opId}`, timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, through, ctx);
  return (await getQueueResult(batch, ctx)).retryMessages.map((message) => message.msgId);
}

describe('feeding recovery', () => {
  it('sends again entries whose messages were never sent, then stops checking', async () => {
    const app = await feedingApp();
    const ids = await lostEntries(app, ['lost-1', 'lost-2', 'lost-3']);
    expect(await recoveryArmed(app)).toBe(true);

    await runRecoveryCheck(app);
    const states = await allSettled(app, ids);
    expect([...states.values()]).toEqual(['FINISHED', 'FINISHED', 'FINISHED']);
    expect(await json(await getDocument(app, 'lost-2'))).toEqual([{ id: 'lost-2', name: 'lost-2', description: 'recovered lost-2' }]);
    const rows = await env.DB.prepare(`SELECT redrives, payload FROM feeding_operations WHERE id = ?`).bind(ids[0]).first();
    expect(rows).toEqual({ redrives: 1, payload: null });

    // Nothing open any more: the next check switches the checks off.
    await runRecoveryCheck(app);
    await waitFor(
      () => recoveryArmed(app),
      (armed) => !armed,
    );
  });

  it("re-arms a check whose alarm was lost when the Cron Trigger's backstop finds its entries open", async () => {
    const app = await feedingApp();
    const [stranded] = await lostEntries(app, ['stranded'], { sentSecondsAgo: 600 });
    // The process died between writing the check's time and setting the alarm.
    await runInDurableObject(app.searchApp.stub, (_instance, state) => state.storage.deleteAlarm());
    await rearmStaleApps(env, createDb(env.DB));
    expect(await runInDurableObject(app.searchApp.stub, (_instance, state) => state.storage.getAlarm())).not.toBeNull();

    await runRecoveryCheck(app);
    expect(await allSettled(app, [stranded])).toEqual(new Map([[stranded, 'FINISHED']]));
  });

  it('leaves entries alone that are neither overdue nor overtaken', async () => {
    const app = await feedingApp();
    const [fresh] = await lostEntries(app, ['fresh'], { sentSecondsAgo: 0 });
    await runRecoveryCheck(app);
    // The check ran (it re-armed itself) but the entry was sent a moment ago: still waiting for its message.
    await waitFor(
      () => recoveryArmed(app),
      (armed) => armed,
    );
    const row = await env.DB.prepare(`SELECT state, redrives FROM feeding_operations WHERE id = ?`).bind(fresh).first();
    expect(row).toEqual({ state: 'CREATED', redrives: 0 });
  });

  it('a full feed whose entries were lost still ends: they are sent again and the index swaps', async () => {
    const { app, cycleId } = await fullFeedOverLiveDocument('old');
    const lost = await lostEntries(app, ['cycle-lost-1', 'cycle-lost-2'], { cycleId });
    const fed = await json(await bulk(app, [envelope('cycle-fed', { name: 'fed' })]));
    await allSettled(app, [fed.documents[0].id], { staged: true });
    expect((await fullFeed(app, 'end')).status).toBe(200);
    expect(await status(app)).toMatchObject({ state: 'ENDING', pendingOperations: 2 });

    // The fed entry (a later id) was applied, so the earlier lost ones count as overtaken.
    await runRecoveryCheck(app);
    await allSettled(app, lost);
    await waitFor(
      () => status(app),
      (s) => s.state === 'NONE',
    );
    expect((await searchIds(app)).sort()).toEqual(['cycle-fed', 'cycle-lost-1', 'cycle-lost-2']);
  });

  it('gives up entries sent too often; their full feed fails with a reason and the live index stays', async () => {
    const { app, cycleId } = await fullFeedOverLiveDocument('live');
    const [hopeless] = await lostEntries(app, ['hopeless'], { cycleId, sentSecondsAgo: 3600, redrives: MAX_REDRIVES });
    const staged = await json(await bulk(app, [envelope('staged', { name: 'staged' })]));
    await allSettled(app, [staged.documents[0].id], { staged: true });
    expect((await fullFeed(app, 'end')).status).toBe(200);

    await runRecoveryCheck(app);
    await allSettled(app, [hopeless]);
    const entry = await env.DB.prepare(`SELECT state, error FROM feeding_operations WHERE id = ?`).bind(hopeless).first();
    expect(entry).toEqual({ state: 'ERROR', error: `lost: sent ${MAX_REDRIVES + 1} times without being processed` });
    const failed = await waitFor(
      () => status(app),
      (s) => s.state === 'FAILED',
    );
    expect(failed).toMatchObject({ active: false, cycleId, reason: expect.stringContaining('1 entries were lost') });
    expect(await searchIds(app)).toEqual(['live']);
    // A new cycle may start after a failed one.
    expect((await fullFeed(app, 'start')).status).toBe(200);
  });
});

describe('entries of a cycle that ended while D1 was not told', () => {
  /** A full feed with two documents staged (PREPARED) and ending: the state just before the swap. */
  async function stagedCycle() {
    const { app, cycleId } = await fullFeedOverLiveDocument('live');
    const fed = await json(await bulk(app, [envelope('staged-1', { name: 'one' }), envelope('staged-2', { name: 'two' })]));
    const ids: number[] = fed.documents.map((d: { id: number }) => d.id);
    await allSettled(app, ids, { staged: true });
    return { app, cycleId, ids };
  }

  async function states(ids: number[]) {
    const rows = await env.DB.prepare(`SELECT state FROM feeding_operations WHERE id IN (${ids.join(',')}) ORDER BY id`).all();
    return rows.results.map((row) => row.state);
  }

  /** The next recovery check FINISHes the staged entries, their documents live and the cycle over. */
  async function expectSwappedByRecoveryCheck(app: FeedingApp, ids: number[]) {
    await runRecoveryCheck(app);
    await allSettled(app, ids);
    expect(await states(ids)).toEqual(['FINISHED', 'FINISHED']);
    expect((await searchIds(app)).sort()).toEqual(['staged-1', 'staged-2']);
    expect(await status(app)).toMatchObject({ state: 'NONE' });
  }

  it('entries left PREPARED by a swap whose D1 update never came are FINISHED by the next recovery check', async () => {
    const { app, cycleId, ids } = await stagedCycle();
    // What End does, minus settling D1: the process died right after the object swapped the index.
    const row = await findSearchApp(createDb(env.DB), app.tenant, app.code);
    await app.searchApp.requestFullFeedEnd();
    expect(await app.searchApp.finishFullFeed(cycleId, indexConfigOf(row!))).toBe('swapped');
    expect(await states(ids)).toEqual(['PREPARED', 'PREPARED']);
    expect(await recoveryArmed(app)).toBe(true);

    await expectSwappedByRecoveryCheck(app, ids);
  });

  it('a cycle whose End died before the swap is swapped by the next recovery check, though no entry was open', async () => {
    const { app, ids } = await stagedCycle();
    // Nothing is open: a check finds nothing to send and the checks stop.
    await runRecoveryCheck(app);
    await waitFor(
      () => recoveryArmed(app),
      (armed) => !armed,
    );
    // What End does before it swaps, then the process died.
    await app.searchApp.requestFullFeedEnd();
    expect(await recoveryArmed(app)).toBe(true);

    await expectSwappedByRecoveryCheck(app, ids);
  });

  it("a cycle left ENDING whose check's alarm was lost is swapped once the Cron Trigger's backstop re-arms the check", async () => {
    const { app, ids } = await stagedCycle();
    const alarm = () => runInDurableObject(app.searchApp.stub, (_instance, state) => state.storage.getAlarm());
    const loseAlarm = () => runInDurableObject(app.searchApp.stub, (_instance, state) => state.storage.deleteAlarm());
    // Staged ten minutes ago: past the backstop's five.
    await env.DB.prepare(
      `UPDATE feeding_operations SET sent_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-10 minutes') WHERE id IN (SELECT value FROM json_each(?))`,
    )
      .bind(JSON.stringify(ids))
      .run();
    // A cycle still being fed needs no check: the backstop leaves it alone.
    await loseAlarm();
    await rearmStaleApps(env, createDb(env.DB));
    expect(await alarm()).toBeNull();
    // What End does before it swaps, then the process died, and the alarm of the check End armed was lost.
    await app.searchApp.requestFullFeedEnd();
    await loseAlarm();
    await rearmStaleApps(env, createDb(env.DB));
    expect(await alarm()).not.toBeNull();

    await expectSwappedByRecoveryCheck(app, ids);
  });

  it("a full feed with no entry left ENDING whose check's alarm was lost is swapped once the Cron Trigger's backstop re-arms the check", async () => {
    // A full feed of zero documents: D1 holds no entry of the cycle for the backstop to find.
    const { app } = await fullFeedOverLiveDocument('live');
    const db = createDb(env.DB);
    const row = (await findSearchApp(db, app.tenant, app.code))!;
    const alarm = () => runInDurableObject(app.searchApp.stub, (_instance, state) => state.storage.getAlarm());
    const endRecords = async () =>
      (await env.DB.prepare('SELECT count(*) AS n FROM full_feed_ends WHERE app_id = ?').bind(row.id).first<{ n: number }>())!.n;
    // What End does before it swaps, then the process died, and the alarm of the check End armed was lost.
    await requestCycleEnd(db, row, app.searchApp);
    await runInDurableObject(app.searchApp.stub, (_instance, state) => state.storage.deleteAlarm());
    // Within five minutes of End the backstop leaves it alone; ten minutes later it arms the check.
    await rearmStaleApps(env, db);
    expect(await alarm()).toBeNull();
    await env.DB.prepare(`UPDATE full_feed_ends SET requested_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-10 minutes') WHERE app_id = ?`)
      .bind(row.id)
      .run();
    await rearmStaleApps(env, db);
    expect(await alarm()).not.toBeNull();

    await runRecoveryCheck(app);
    await waitFor(
      () => status(app),
      (answer) => answer.state === 'NONE',
    );
    expect(await searchIds(app)).toEqual([]);
    // The cycle is over: the backstop's next run drops End's record, and calls the object no more.
    expect(await endRecords()).toBe(1);
    await rearmStaleApps(env, db);
    expect(await endRecords()).toBe(0);
    // End with no cycle answers 404 and takes its record back: the backstop has nothing to call the object for.
    expect((await fullFeed(app, 'end')).status).toBe(404);
    expect(await endRecords()).toBe(0);
  });

  it('entries left PREPARED by a cancel whose D1 update never came are CANCELED by the next recovery check', async () => {
    const { app, ids } = await stagedCycle();
    await app.searchApp.cancelFullFeed();
    expect(await recoveryArmed(app)).toBe(true);

    await runRecoveryCheck(app);
    await allSettled(app, ids);
    expect(await states(ids)).toEqual(['CANCELED', 'CANCELED']);
    expect(await searchIds(app)).toEqual(['live']);
  });
});

/**
 * The search-app objects of an environment whose first call waits until the test opens the gate: a consumer delivery
 * held there is past its state check in D1 (it marked its entries STARTED) and has not reached any object yet.
 */
function gatedEnv() {
  let reach = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const gated = objectCallsThrough(async (send) => {
    reach();
    await opened;
    return send();
  });
  return { env: gated, reached, open };
}

/** A document id of this prefix that 2 shards put on shard 1 (a 1-shard app holds it on shard 0). */
function onShardOneOfTwo(prefix: string): string {
  return [0, 1, 2, 3].map((n) => `${prefix}-${n}`).find((id) => shardOf(id, 2) === 1)!;
}

/** A re-index job moves the app's documents from 1 shard to 2. */
async function moveToTwoShards(app: FeedingApp): Promise<void> {
  const row = (await findSearchApp(createDb(env.DB), app.tenant, app.code))!;
  await app.searchApp.reshard(2, indexConfigOf(row), `job-${app.code}`);
  expect((await app.searchApp.layout()).layout).toEqual({ shards: 2, generation: 1 });
}

describe('a delivery racing the give-up of its entry', () => {
  /**
   * An entry re-sent too often whose last delivery is held past the consumer's state check while the recovery check
   * gives it up (nothing holds it: ERROR); then `meanwhile` runs and the delivery goes on. It must not apply: the entry's
   * final state is what the index holds.
   */
  async function race(documentId: string, meanwhile: (app: FeedingApp) => Promise<void> = async () => {}) {
    const app = await feedingApp();
    const appId = await appIdOf(app);
    const [opId] = await lostEntries(app, [documentId], { sentSecondsAgo: 3_600, redrives: MAX_REDRIVES });
    const body: FeedingMessage = {
      kind: 'operations',
      appId,
      operations: [{ opId, documentId, operation: 'update', payload: { name: documentId, description: 'late' }, cycleId: null }],
    };
    const gate = gatedEnv();
    const batch = createMessageBatch<FeedingMessage>('feeding', [{ id: 'late', timestamp: new Date(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    const delivery = worker.queue(batch, gate.env, ctx);
    await gate.reached;
    await recoverApp(env, createDb(env.DB), { appId, stalled: true, appliedUpTo: 0, requestedAt: Date.now() });
    const state = async () =>
      (await env.DB.prepare('SELECT state FROM feeding_operations WHERE id = ?').bind(opId).first<{ state: string }>())!.state;
    expect(await state()).toBe('ERROR');
    await meanwhile(app);
    gate.open();
    await delivery;
    expect((await getQueueResult(batch, ctx)).retryMessages).toEqual([]);
    expect(await state()).toBe('ERROR');
    expect(await app.searchApp.document(documentId)).toBeNull();
    expect(await searchIds(app)).toEqual([]);
  }

  it('a delivery past the state check while its entry is given up (ERROR) does not apply it afterwards', async () => {
    await race('raced');
  });

  it('an entry whose shard is moving its documents is not given up until the move is over', async () => {
    const app = await feedingApp();
    const appId = await appIdOf(app);
    const [opId] = await lostEntries(app, ['moving'], { sentSecondsAgo: 3_600, redrives: MAX_REDRIVES });
    const state = async () =>
      (await env.DB.prepare('SELECT state FROM feeding_operations WHERE id = ?').bind(opId).first<{ state: string }>())!.state;
    const check = () => recoverApp(env, createDb(env.DB), { appId, stalled: true, appliedUpTo: 0, requestedAt: Date.now() });
    // A move's last catch-up: a refusal made now would not reach the new layout's shards.
    await app.searchApp.stub.seal(30_000);
    await check();
    expect(await state()).toBe('CREATED');
    await app.searchApp.stub.seal(0);
    await check();
    expect(await state()).toBe('ERROR');
  });

  it('nor after a move to 2 shards puts its document on a shard the give-up never asked', async () => {
    await race(onShardOneOfTwo('raced'), moveToTwoShards);
  });

  /**
   * An update of `documentId` whose message was lost arrives after its document's delete was applied and the delete's
   * tombstone dropped (a snapshot covered it two hours ago), after `meanwhile`: it must not bring the document back.
   */
  async function lateAfterDroppedTombstone(documentId: string, meanwhile: (app: FeedingApp) => Promise<void> = async () => {}) {
    const app = await feedingApp();
    const appId = await appIdOf(app);
    const stub = app.searchApp.stub;
    expect((await bulk(app, [envelope(documentId, { name: documentId })])).status).toBe(200);
    await waitFor(
      () => app.searchApp.document(documentId),
      (doc) => doc !== null,
    );
    // An update whose message was lost (not due for a re-send during the test), then the document's delete.
    const [late] = await lostEntries(app, [documentId], { sentSecondsAgo: -3_600 });
    expect((await bulk(app, [{ header: { id: documentId, action: 'delete' } }])).status).toBe(200);
    await waitFor(
      () => app.searchApp.document(documentId),
      (doc) => doc === null,
    );
    const tombstones = () =>
      runInDurableObject(
        stub,
        (_instance, state) => state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM documents WHERE payload IS NULL').one().n,
      );
    expect(await tombstones()).toBe(1);
    // A snapshot covers the delete, two hours pass, and the snapshot after the next change drops the tombstone.
    await runDurableObjectAlarm(stub);
    await runInDurableObject(stub, (_instance, state) => {
      const row = state.storage.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'snapshotsAt'`).one();
      const marks = (JSON.parse(row.value) as Array<{ seq: number; at: number }>).map((mark) => ({ ...mark, at: mark.at - 2 * 3_600_000 }));
      state.storage.sql.exec(`UPDATE meta SET value = ? WHERE key = 'snapshotsAt'`, JSON.stringify(marks));
    });
    expect((await bulk(app, [envelope('other', { name: 'other' })])).status).toBe(200);
    await waitFor(
      () => app.searchApp.document('other'),
      (doc) => doc !== null,
    );
    await runDurableObjectAlarm(stub);
    expect(await tombstones()).toBe(0);
    await meanwhile(app);

    // The lost update arrives now (a late re-send): it must not bring the deleted document back.
    const update: FeedOperation = {
      opId: late,
      documentId,
      operation: 'update',
      payload: { name: documentId, description: 'late' },
      cycleId: null,
    };
    expect(await deliver(appId, [update])).toEqual([]);
    expect(await app.searchApp.document(documentId)).toBeNull();
    // Given up at once (every re-send would be refused alike): nothing holds it.
    const entry = await env.DB.prepare('SELECT state, error FROM feeding_operations WHERE id = ?').bind(late).first();
    expect(entry).toEqual({ state: 'ERROR', error: REFUSED });
    expect(await searchIds(app)).toEqual(['other']);
  }

  it("an update older than its document's delete, arriving after the delete's tombstone was dropped, is refused and given up", async () => {
    await lateAfterDroppedTombstone('gone');
  });

  it('so is one arriving after a move to 2 shards put its document on a shard that dropped no tombstone', async () => {
    await lateAfterDroppedTombstone(onShardOneOfTwo('gone'), moveToTwoShards);
  });
});

describe('a give-up that leaves its entry open', () => {
  it('takes back the refusal it made where the operation was missing: the re-delivery stages it and the swap keeps it', async () => {
    // A 1-shard app whose full feed stages into 2 shards is ending; an entry of the cycle, not yet delivered, keeps it so.
    const app = await feedingApp();
    const appId = await appIdOf(app);
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { shards: 2 } }));
    const { cycleId } = await json(await expectOk(fullFeed(app, 'start')));
    const [pending] = await lostEntries(app, ['fed'], { cycleId, sentSecondsAgo: -3_600 });
    expect(await json(await expectOk(fullFeed(app, 'end')))).toMatchObject({ state: 'ENDING' });

    // A live update sent meanwhile, of a document the cycle puts on shard 1: applied live on shard 0 and staged into the
    // cycle on shard 1 (its copy). Its delivery died between the two calls: live, not staged.
    const documentId = onShardOneOfTwo('ending');
    const [opId] = await lostEntries(app, [documentId], { lastCycleId: cycleId, sentSecondsAgo: 3_600, redrives: MAX_REDRIVES });
    const update: FeedOperation = {
      opId,
      documentId,
      operation: 'update',
      payload: { name: documentId, description: 'sent while the full feed ended' },
      cycleId: null,
      lastCycle: cycleId,
    };
    let firstApplied: Promise<unknown> | undefined;
    const dying = objectCallsThrough(async (send, method) => {
      if (method !== 'applyToShard') return send();
      if (!firstApplied) return (firstApplied = send());
      await firstApplied;
      throw new Error('the process died');
    });
    expect(await deliver(appId, [update], dying)).toEqual([`m${opId}`]);
    expect(await app.searchApp.shard(0).document(documentId)).not.toBeNull();

    // Given up (re-sent too often): held in one of its two places, it stays open, and shard 1's refusal is taken back.
    await recoverApp(env, createDb(env.DB), { appId, stalled: true, appliedUpTo: 0, requestedAt: Date.now() });
    const state = async (id: number) =>
      (await env.DB.prepare('SELECT state FROM feeding_operations WHERE id = ?').bind(id).first<{ state: string }>())!.state;
    expect(await state(opId)).toBe('STARTED');

    // The queue's retry stages the copy; the cycle's last entry arrives and the swap keeps the document.
    expect(await deliver(appId, [update])).toEqual([]);
    expect(await state(opId)).toBe('FINISHED');
    expect(await deliver(appId, [{ opId: pending, documentId: 'fed', operation: 'update', payload: { name: 'fed' }, cycleId }])).toEqual(
      [],
    );
    expect(await status(app)).toMatchObject({ state: 'NONE' });
    expect((await app.searchApp.layout()).layout).toEqual({ shards: 2, generation: 1 });
    expect(await app.searchApp.document(documentId)).toEqual({ name: documentId, description: 'sent while the full feed ended' });
    expect((await searchIds(app)).sort()).toEqual([documentId, 'fed'].sort());
  });
});
