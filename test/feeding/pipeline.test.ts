import { createExecutionContext, createMessageBatch, evictDurableObject, getQueueResult, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import type { FeedingMessage } from '../../src/feeding/operations';
import { schemaFingerprint } from '../../src/feeding/envelopes';
import { createDb } from '../../src/db/client';
import { findSearchAppById } from '../../src/db/queries';
import { call, json, waitFor } from '../helpers';
import { allSettled, bulk, debianEnvelopes, debianSchema, envelope, feedingApp, searchIds, settled } from './helpers';

function multipart(content: string, name = 'file', boundary = 'XyZboundary42') {
  const body = `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nignored\r\n--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="feed.json"\r\nContent-Type: application/json\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  return { rawBody: body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
}

describe('upload', () => {
  it('feeds a JSON array file', async () => {
    const app = await feedingApp();
    const entries = debianEnvelopes.slice(0, 120);
    const res = await call('POST', `/api/v1/data/upload/svc/${app.tenant}/${app.code}`, {
      token: app.feed,
      ...multipart(JSON.stringify(entries, null, 1)),
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ message: '120 documents queued, 0 rejected', processedValidDocs: true });
    await allSettled(
      app,
      body.documents.map((d: { id: number }) => d.id),
    );
    expect((await app.searchApp.stats()).documents).toBe(120);
  });

  it('feeds NDJSON, reporting a broken line as ERROR and keeping the others', async () => {
    const app = await feedingApp();
    const lines = [JSON.stringify(envelope('a', { name: 'a' })), '{"header": oops', JSON.stringify(envelope('b', { name: 'b' }))];
    const res = await call('POST', `/api/v1/data/upload/svc/${app.tenant}/${app.code}`, {
      token: app.feed,
      ...multipart(lines.join('\n')),
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.documents.map((d: { state: string }) => d.state)).toEqual(['CREATED', 'ERROR', 'CREATED']);
    expect(body.documents[1].error).toBe('entry 2 is not valid JSON');
  });

  it('answers 400 for an unsupported body type, a missing file part, or a file that is not JSON', async () => {
    const app = await feedingApp();
    const upload = (options: object) => call('POST', `/api/v1/data/upload/svc/${app.tenant}/${app.code}`, { token: app.feed, ...options });
    let res = await upload({ rawBody: 'name,description', headers: { 'Content-Type': 'text/csv' } });
    expect(res.status).toBe(400);
    expect((await json(res)).details[0].path).toBe('Content-Type');
    res = await upload(multipart('[]', 'other'));
    expect(res.status).toBe(400);
    expect((await json(res)).details[0]).toEqual({ path: 'file', message: 'required' });
    res = await upload(multipart('name,description\nvim,editor'));
    expect(res.status).toBe(400);
    res = await upload(multipart('[{"header": {"id": "a", "action": "update"}, "payload": {}}, {broken'));
    expect(res.status).toBe(400);
  });
});

describe('schedule feeding job', () => {
  it('re-indexes the stored documents with the new schema and reports progress', async () => {
    const app = await feedingApp();
    const ids = (await json(await bulk(app, debianEnvelopes.slice(0, 200)))).documents.map((d: { id: number }) => d.id);
    await allSettled(app, ids);
    // The maintainer field becomes a facet; the index only shows it after the job.
    const schema = structuredClone(debianSchema) as { fields: Array<Record<string, unknown>> };
    schema.fields.find((f) => f.code === 'maintainer')!.facet = true;
    await call('PUT', `/api/v1/searchapp/schema/${app.tenant}/${app.code}`, { token: app.admin, body: schema });
    expect((await app.searchApp.search({ page: 1, rows: 1 })).facets.map((f) => f.id)).not.toContain('maintainer');

    const res = await call('PUT', `/api/v1/job/${app.tenant}/${app.code}/feeding/_schedule`, { token: app.feed, body: {} });
    expect(res.status).toBe(200);
    const { jobId, state } = await json(res);
    expect(state).toBe('CREATED');
    const job = await waitFor(
      async () => json(await call('GET', `/api/v1/job/${app.tenant}/${app.code}/${jobId}`, { token: app.feed })),
      (current) => current.state === 'FINISHED',
    );
    expect(job).toMatchObject({ jobId, processed: 200, total: 200 });
    expect((await app.searchApp.search({ page: 1, rows: 1 })).facets.map((f) => f.id)).toContain('maintainer');
  });

  it('answers 404 for an unknown search app or job, 401 without a token', async () => {
    const app = await feedingApp();
    expect((await call('PUT', `/api/v1/job/${app.tenant}/nope/feeding/_schedule`, { token: app.feed, body: {} })).status).toBe(404);
    expect((await call('GET', `/api/v1/job/${app.tenant}/${app.code}/no-such-job`, { token: app.feed })).status).toBe(404);
    expect((await call('PUT', `/api/v1/job/${app.tenant}/${app.code}/feeding/_schedule`, { body: {} })).status).toBe(401);
  });
});

describe('terminal ERROR states and the dead-letter queue', () => {
  async function queuedEntry(appId: number, documentId: string) {
    const row = await env.DB.prepare(
      `INSERT INTO feeding_operations (app_id, document_id, operation, state, type) VALUES (?, ?, 'update', 'CREATED', 'svc') RETURNING id`,
    )
      .bind(appId, documentId)
      .first<{ id: number }>();
    return row!.id;
  }

  async function appId(tenant: string) {
    return (await env.DB.prepare('SELECT id FROM search_apps WHERE tenant_code = ?').bind(tenant).first<{ id: number }>())!.id;
  }

  it('marks an operation whose payload no longer fits the schema as ERROR with the reason', async () => {
    const app = await feedingApp();
    const id = await queuedEntry(await appId(app.tenant), 'late');
    const message: FeedingMessage = {
      kind: 'operations',
      appId: await appId(app.tenant),
      operations: [{ opId: id, documentId: 'late', operation: 'update', payload: { name: 'late', removedField: 1 } }],
    };
    const batch = createMessageBatch<FeedingMessage>('feeding', [{ id: 'm1', timestamp: new Date(), attempts: 1, body: message }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['m1']);
    const entry = await settled(app, id);
    expect(entry.state).toBe('ERROR');
    expect(entry.error).toMatch(/no longer fits the schema: payload: Unrecognized key/);
  });

  /** The fingerprint of the app's field schema as stored now (what the bulk route stamps on its messages). */
  async function currentSchema(tenant: string) {
    const app = await findSearchAppById(createDb(env.DB), await appId(tenant));
    return schemaFingerprint(app!.fields);
  }

  async function consume(messages: Array<{ id: string; body: FeedingMessage }>) {
    const batch = createMessageBatch<FeedingMessage>(
      'feeding',
      messages.map(({ id, body }) => ({ id, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    return getQueueResult(batch, ctx);
  }

  it('checks an entry again when the schema changed after it was accepted', async () => {
    const app = await feedingApp({
      fields: [
        { code: 'name', dataType: 'string' },
        { code: 'size', dataType: 'long' },
      ],
    });
    const id = await appId(app.tenant);
    const acceptedUnder = await currentSchema(app.tenant);
    const fits = await queuedEntry(id, 'fits');
    const stale = await queuedEntry(id, 'stale');
    await call('PUT', `/api/v1/searchapp/schema/${app.tenant}/${app.code}`, {
      token: app.admin,
      body: { fields: [{ code: 'name', dataType: 'string' }] },
    });
    const result = await consume([
      {
        id: 'current',
        body: {
          kind: 'operations',
          appId: id,
          schema: await currentSchema(app.tenant),
          operations: [{ opId: fits, documentId: 'fits', operation: 'update', payload: { name: 'fits' } }],
        },
      },
      {
        id: 'old',
        body: {
          kind: 'operations',
          appId: id,
          schema: acceptedUnder,
          operations: [{ opId: stale, documentId: 'stale', operation: 'update', payload: { name: 'stale', size: 3 } }],
        },
      },
    ]);
    expect(result.explicitAcks.sort()).toEqual(['current', 'old']);
    expect(await settled(app, fits)).toMatchObject({ state: 'FINISHED' });
    expect(await settled(app, stale)).toMatchObject({
      state: 'ERROR',
      error: expect.stringMatching(/no longer fits the schema: payload: Unrecognized key/),
    });
  });

  it('applies the messages of a batch together: an older operation of a document is IGNORED behind a newer one of another message', async () => {
    const app = await feedingApp();
    const id = await appId(app.tenant);
    const schema = await currentSchema(app.tenant);
    const older = await queuedEntry(id, 'same');
    const newer = await queuedEntry(id, 'same');
    const result = await consume([
      {
        id: 'm1',
        body: {
          kind: 'operations',
          appId: id,
          schema,
          operations: [{ opId: older, documentId: 'same', operation: 'update', payload: { name: 'first' } }],
        },
      },
      {
        id: 'm2',
        body: {
          kind: 'operations',
          appId: id,
          schema,
          operations: [{ opId: newer, documentId: 'same', operation: 'update', payload: { name: 'second' } }],
        },
      },
    ]);
    expect(result.explicitAcks.sort()).toEqual(['m1', 'm2']);
    expect(await allSettled(app, [older, newer])).toEqual(
      new Map([
        [older, 'IGNORED'],
        [newer, 'FINISHED'],
      ]),
    );
    expect(await app.searchApp.document('same')).toEqual({ name: 'second' });
  });

  it('a message failing in a batch applied together is retried alone; the others of the batch are applied', async () => {
    const app = await feedingApp();
    const id = await appId(app.tenant);
    const schema = await currentSchema(app.tenant);
    const good = await queuedEntry(id, 'good');
    const poison = await queuedEntry(id, 'poison');
    // A BigInt passes the queue and RPC but not the object's JSON storage: its apply throws every time.
    const result = await consume([
      {
        id: 'good',
        body: {
          kind: 'operations',
          appId: id,
          schema,
          operations: [{ opId: good, documentId: 'good', operation: 'update', payload: { name: 'good' } }],
        },
      },
      {
        id: 'poison',
        body: {
          kind: 'operations',
          appId: id,
          schema,
          operations: [{ opId: poison, documentId: 'poison', operation: 'update', payload: { name: 'poison', installedSize: 1n } }],
        },
      },
    ]);
    expect(result.explicitAcks).toEqual(['good']);
    expect(result.retryMessages.map((retry) => retry.msgId)).toEqual(['poison']);
    expect(await settled(app, good)).toMatchObject({ state: 'FINISHED' });
    expect(await app.searchApp.document('good')).toEqual({ name: 'good' });
    expect(await app.searchApp.document('poison')).toBeNull();
  });

  it('marks the operations of a dead-lettered message as ERROR', async () => {
    const app = await feedingApp();
    const id = await queuedEntry(await appId(app.tenant), 'poison');
    const batch = createMessageBatch<FeedingMessage>('feeding-dlq', [
      {
        id: 'dead',
        timestamp: new Date(),
        attempts: 6,
        body: { kind: 'operations', appId: await appId(app.tenant), operations: [{ opId: id, documentId: 'poison', operation: 'delete' }] },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['dead']);
    expect(await settled(app, id)).toMatchObject({ state: 'ERROR', error: 'processing failed after 6 deliveries' });
  });

  it('acknowledges and logs a message body no consumer can read, on every queue, instead of retrying it', async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    try {
      for (const queue of ['feeding', 'feeding-dlq', 'email', 'email-dlq']) {
        const batch = createMessageBatch(queue, [{ id: `bad-${queue}`, timestamp: new Date(), attempts: 1, body: { kind: 'unknown' } }]);
        const ctx = createExecutionContext();
        await worker.queue(batch, env, ctx);
        const result = await getQueueResult(batch, ctx);
        expect(result.explicitAcks).toEqual([`bad-${queue}`]);
        expect(result.retryMessages).toEqual([]);
      }
    } finally {
      spy.mockRestore();
    }
    expect(errors.map((line) => JSON.parse(line).msg)).toEqual(Array(4).fill('unreadable queue message'));
  });
});

describe('the index survives', () => {
  it('answers the same results after eviction, from the snapshot plus later changes', async () => {
    const app = await feedingApp();
    const stub = app.searchApp.stub;
    await allSettled(
      app,
      (await json(await bulk(app, debianEnvelopes.slice(0, 400)))).documents.map((d: { id: number }) => d.id),
    );
    // The feed scheduled the snapshot alarm; running it writes a snapshot covering every applied batch.
    expect((await app.searchApp.stats()).snapshotSeq).toBe(0);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const snapshotted = await app.searchApp.stats();
    expect(snapshotted.seq).toBeGreaterThan(0);
    expect(snapshotted.snapshotSeq).toBe(snapshotted.seq);

    const queries = ['library', 'python', 'editor', ''];
    const before = await Promise.all(queries.map((q) => searchIds(app, q)));
    await evictDurableObject(stub);
    expect(await Promise.all(queries.map((q) => searchIds(app, q)))).toEqual(before);

    // A change after the snapshot is not covered by it: the next load replays it on top of the snapshot.
    const res = await bulk(app, [envelope('zzz-new', { name: 'zzz-new', description: 'a python library' })]);
    await settled(app, (await json(res)).documents[0].id);
    expect(await app.searchApp.stats()).toMatchObject({ seq: snapshotted.seq + 1, snapshotSeq: snapshotted.seq });
    await evictDurableObject(stub);
    expect(await searchIds(app, 'zzz')).toEqual(['zzz-new']);
    // Loaded, not rebuilt: a rebuild would have written a snapshot covering the change.
    expect(await app.searchApp.stats()).toEqual({ documents: 401, indexed: 401, seq: snapshotted.seq + 1, snapshotSeq: snapshotted.seq });

    // The alarm the change scheduled brings the snapshot up to date; a later run (the alarm also drives the
    // feeding recovery checks) leaves it as it is.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await app.searchApp.stats()).snapshotSeq).toBe(snapshotted.seq + 1);
    await runDurableObjectAlarm(stub);
    expect(await app.searchApp.stats()).toMatchObject({ seq: snapshotted.seq + 1, snapshotSeq: snapshotted.seq + 1 });
  });
});
