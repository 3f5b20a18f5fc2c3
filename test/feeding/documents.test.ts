import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call, createTenantWithApp, createToken, json, uniqueCode } from '../helpers';
import { allSettled, bulk, debianEnvelopes, envelope, feedingApp, getDocument, settled } from './helpers';

const vim = debianEnvelopes.find((e) => e.header.id === 'vim')!;

describe('update, get and delete a document', () => {
  it('queues an update, processes it and answers the indexed state', async () => {
    const app = await feedingApp();
    const res = await call('POST', `/api/v1/data/svc/${app.tenant}/${app.code}/vim`, { token: app.feed, body: vim });
    expect(res.status).toBe(200);
    const entry = await json(res);
    expect(entry).toMatchObject({ documentId: 'vim', operation: 'update', state: 'CREATED', type: 'svc', finishedAt: null });
    expect(typeof entry.id).toBe('number');
    expect(await settled(app, entry.id)).toMatchObject({ state: 'FINISHED' });
    expect(await json(await getDocument(app, 'vim'))).toEqual([{ id: 'vim', ...vim.payload }]);
  });

  it('deletes a document: FINISHED, then 404 on get and on a second delete', async () => {
    const app = await feedingApp();
    const created = await json(await call('POST', `/api/v1/data/svc/${app.tenant}/${app.code}/vim`, { token: app.feed, body: vim }));
    await settled(app, created.id);
    const del = await call('DELETE', `/api/v1/data/svc/${app.tenant}/${app.code}/vim`, { token: app.feed });
    expect(del.status).toBe(200);
    const entry = await json(del);
    expect(entry).toMatchObject({ documentId: 'vim', operation: 'delete', state: 'CREATED' });
    expect(await settled(app, entry.id)).toMatchObject({ state: 'FINISHED' });
    expect((await getDocument(app, 'vim')).status).toBe(404);
    expect((await call('DELETE', `/api/v1/data/svc/${app.tenant}/${app.code}/vim`, { token: app.feed })).status).toBe(404);
  });

  it('accepts the reporting format: flat records with the id beside the fields', async () => {
    const app = await feedingApp();
    const res = await call('POST', `/api/v1/data/reporting/${app.tenant}/${app.code}/mypkg`, {
      token: app.feed,
      body: { id: 'mypkg', name: 'mypkg', section: 'utils', installedSize: 12 },
    });
    expect(res.status).toBe(200);
    await settled(app, (await json(res)).id);
    expect(await json(await getDocument(app, 'mypkg'))).toEqual([{ id: 'mypkg', name: 'mypkg', section: 'utils', installedSize: 12 }]);
  });

  it('rejects invalid payloads with details and stores nothing', async () => {
    const app = await feedingApp();
    const post = (id: string, body: unknown, type = 'svc') =>
      call('POST', `/api/v1/data/${type}/${app.tenant}/${app.code}/${id}`, { token: app.feed, body });

    let res = await post('x', envelope('x', { name: 'x', nosuchfield: 1, installedSize: 'big', essential: 'yes', tags: [3] }));
    expect(res.status).toBe(400);
    const paths = (await json(res)).details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['payload', 'payload.essential', 'payload.installedSize', 'payload.tags']);

    res = await post('other', envelope('x', { name: 'x' }));
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([{ path: 'header.id', message: "must equal the path documentId 'other'" }]);

    res = await post('x', { header: { id: 'x', action: 'upsert' }, payload: {} });
    expect((await json(res)).details[0].path).toBe('header.action');
    res = await post('x', { header: { id: 'x', action: 'update' } });
    expect((await json(res)).details).toEqual([{ path: 'payload', message: 'an update needs a payload' }]);
    res = await post('x', envelope('x', { name: 'x' }), 'xml');
    expect(res.status).toBe(400);
    expect((await json(res)).details[0].path).toBe('type');
    res = await post('x', { header: { id: 'x', action: 'delete' } });
    expect((await json(res)).details[0].path).toBe('header.action');

    const rows = await env.DB.prepare('SELECT count(*) AS n FROM feeding_operations WHERE document_id = ?')
      .bind('x')
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
    expect((await getDocument(app, 'x')).status).toBe(404);
  });

  it('answers 413 for a single-document body over 1 MB', async () => {
    const app = await feedingApp();
    const big = JSON.stringify(envelope('big', { name: 'x'.repeat(1_100_000) }));
    const res = await call('POST', `/api/v1/data/svc/${app.tenant}/${app.code}/big`, {
      token: app.feed,
      rawBody: big,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(big.length) },
    });
    expect(res.status).toBe(413);
  });

  it('rejects a document over 100 KB even inside the body limit', async () => {
    const app = await feedingApp();
    const res = await call('POST', `/api/v1/data/svc/${app.tenant}/${app.code}/big`, {
      token: app.feed,
      body: envelope('big', { description: 'x'.repeat(150_000) }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).details[0].message).toMatch(/at most 100000/);
  });
});

describe('authorization of the data endpoints', () => {
  it('answers 401, 403 and 404 as the interface says', async () => {
    const app = await feedingApp();
    const other = await createTenantWithApp('other');
    const readOnly = (await createToken(app.tenant, 'feeding', 'READ')).token;
    const otherFeed = (await createToken(other.tenant, 'feeding')).token;
    const post = (token: string | undefined, tenant = app.tenant, code = app.code) =>
      call('POST', `/api/v1/data/svc/${tenant}/${code}/vim`, { token, body: vim });

    expect((await post(undefined)).status).toBe(401);
    expect((await post('sst_bogus.token')).status).toBe(401);
    expect((await post(app.admin)).status).toBe(403);
    expect((await post(readOnly)).status).toBe(403);
    expect((await post(otherFeed)).status).toBe(403);
    expect((await post(app.feed, uniqueCode('ghost'))).status).toBe(403);
    expect((await post(app.feed, app.tenant, 'missing')).status).toBe(404);
    // READ is enough to read.
    expect((await getDocument({ ...app, feed: readOnly }, 'vim')).status).toBe(404);
    expect((await post(app.feed)).status).toBe(200);
  });
});

describe('bulk', () => {
  it('queues valid entries, reports invalid ones as ERROR with a reason, and ignores superseded ones', async () => {
    const app = await feedingApp();
    const res = await bulk(app, [
      envelope('a', { name: 'alpha' }),
      { header: { id: 'b' } },
      envelope('c', { name: 'gamma', installedSize: 'many' }),
      envelope('a', { name: 'alpha two' }),
      { header: { id: 'd', action: 'delete' } },
    ]);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ statusCode: 200, processedValidDocs: true, message: '3 documents queued, 2 rejected' });
    expect(body.documents.map((d: { documentId: string; state: string }) => [d.documentId, d.state])).toEqual([
      ['a', 'CREATED'],
      ['b', 'ERROR'],
      ['c', 'ERROR'],
      ['a', 'CREATED'],
      ['d', 'CREATED'],
    ]);
    expect(body.documents[1].error).toMatch(/header\.action/);
    expect(body.documents[2].error).toMatch(/2\.payload\.installedSize/);

    const [first, , , second, deletion] = body.documents;
    const states = await allSettled(app, [first.id, second.id, deletion.id]);
    expect(states.get(first.id)).toBe('IGNORED');
    expect(states.get(second.id)).toBe('FINISHED');
    expect(states.get(deletion.id)).toBe('FINISHED');
    expect(await json(await getDocument(app, 'a'))).toEqual([{ id: 'a', name: 'alpha two' }]);
  });

  it('answers 400 for a body that is not an array', async () => {
    const app = await feedingApp();
    const res = await bulk(app, { header: { id: 'a', action: 'update' }, payload: {} } as unknown as unknown[]);
    expect(res.status).toBe(400);
    expect((await json(res)).details[0].path).toBe('(root)');
  });

  it('indexes the 3,237 documents of the Debian fixture', async () => {
    const app = await feedingApp();
    const ids: number[] = [];
    for (let i = 0; i < debianEnvelopes.length; i += 1000) {
      const res = await bulk(app, debianEnvelopes.slice(i, i + 1000));
      expect(res.status).toBe(200);
      ids.push(...(await json(res)).documents.map((d: { id: number }) => d.id));
    }
    const states = await allSettled(app, ids);
    expect([...states.values()].every((s) => s === 'FINISHED')).toBe(true);
    expect(await app.searchApp.stats()).toMatchObject({ documents: debianEnvelopes.length, indexed: debianEnvelopes.length });
    expect((await app.searchApp.search({ q: 'nginx', page: 1, rows: 3 })).documents[0].id).toBe('nginx');
  });
});

describe('queue entries', () => {
  it('answers 404 for an unknown entry and for an entry of another search app', async () => {
    const app = await feedingApp();
    const other = await feedingApp();
    const created = await json(await call('POST', `/api/v1/data/svc/${app.tenant}/${app.code}/vim`, { token: app.feed, body: vim }));
    expect((await call('GET', `/api/v1/data/queue/${app.tenant}/${app.code}/999999`, { token: app.feed })).status).toBe(404);
    expect((await call('GET', `/api/v1/data/queue/${other.tenant}/${other.code}/${created.id}`, { token: other.feed })).status).toBe(404);
  });
});
