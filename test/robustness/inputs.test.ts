import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AGENT_TOKEN, call, json, uniqueCode, expectOk } from '../helpers';
import { bulk, envelope, feedingApp, type FeedingApp } from '../feeding/helpers';

/** Inputs naming prototype keys, and bodies that do not say their length. */

const RESERVED = ['__proto__', 'constructor', 'prototype'];

function post(path: string, rawJson: string, token?: string) {
  return call('POST', path, { token, rawBody: rawJson, headers: { 'Content-Type': 'application/json' } });
}

/** A body of `bytes` bytes sent as a stream, so no Content-Length announces its size. */
function streamedBody(bytes: number, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const size = Math.min(chunk, bytes - sent);
      controller.enqueue(new Uint8Array(size).fill(0x20)); // spaces: still JSON whitespace, never parsed whole
      sent += size;
    },
  });
}

async function expectError(res: Response, status: number, path?: string) {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ statusCode: status, error: expect.any(String), message: expect.any(String) });
  if (path) expect(body.details.map((d: { path: string }) => d.path)).toContain(path);
}

describe('reserved keys are refused with 400 wherever a key comes from the request', () => {
  let app: FeedingApp;
  const searchPath = () => `/api/v1/search/${app.tenant}/${app.code}`;

  it('GET search filters f.__proto__, f.constructor, f.prototype and attribute keys', async () => {
    app = await feedingApp();
    for (const key of RESERVED) {
      await expectError(await call('GET', `${searchPath()}?q=x&f.${key}=x`), 400, `f.${key}`);
      await expectError(await call('GET', `${searchPath()}?f.attributes.${key}=x`), 400, `f.attributes.${key}`);
    }
    // A real facet still answers.
    expect((await call('GET', `${searchPath()}?f.section=libs`)).status).toBe(200);
  });

  it('POST search filters with a reserved facet id are 400, not silently dropped', async () => {
    for (const key of RESERVED) {
      const res = await post(searchPath(), `{"q":"","filters":{"${key}":{"filterType":"term","values":["x"]}}}`);
      await expectError(res, 400, `filters.${key}`);
    }
  });

  it('schema updates: a null body, and reserved field codes, are 400', async () => {
    const schemaPath = `/api/v1/searchapp/schema/${app.tenant}/${app.code}`;
    for (const raw of ['null', '[]', '"x"', '0']) {
      const res = await call('PUT', schemaPath, { token: app.admin, rawBody: raw, headers: { 'Content-Type': 'application/json' } });
      await expectError(res, 400);
    }
    for (const key of RESERVED) {
      const res = await call('PUT', schemaPath, { token: app.admin, body: { fields: [{ code: key, dataType: 'string' }] } });
      await expectError(res, 400, 'fields.0.code');
    }
  });

  it('documents with reserved payload or attribute keys: 400 alone, one ERROR entry in a bulk', async () => {
    const docPath = `/api/v1/data/svc/${app.tenant}/${app.code}/d1`;
    await expectError(
      await post(docPath, '{"header":{"id":"d1","action":"update"},"payload":{"name":"a","__proto__":{"x":1}}}', app.feed),
      400,
      'payload.__proto__',
    );
    await expectError(
      await post(docPath, '{"header":{"id":"d1","action":"update"},"payload":{"name":"a","attributes":{"constructor":"x"}}}', app.feed),
      400,
      'payload.attributes.constructor',
    );
    const entries = JSON.stringify([envelope('ok-1', { name: 'fine' })]).slice(0, -1) + ',{"id":"r","__proto__":{"name":"x"}}]';
    const res = await post(`/api/v1/data/bulk/svc/${app.tenant}/${app.code}`, entries, app.feed);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.documents.map((d: { state: string }) => d.state)).toEqual(['CREATED', 'ERROR']);
    expect(body.documents[1].error).toContain("1.__proto__: '__proto__' is a reserved name");
  });

  it('email variables named like prototype keys are 400 at configuration and at send', async () => {
    const tenant = uniqueCode('mail');
    await expectOk(call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: {} }));
    for (const key of RESERVED) {
      const res = await call('PUT', `/api/v1/admin/email/${tenant}/welcome`, {
        token: ADMIN_TOKEN,
        rawBody: `{"variables":{"${key}":{"value":"x"}}}`,
        headers: { 'Content-Type': 'application/json' },
      });
      await expectError(res, 400, `variables.${key}`);
    }
  });
});

describe('body limits hold for streamed bodies without Content-Length', () => {
  it('a single document over 1 MB, a bulk over 32 MB, a search and a chat over their limits answer 413', async () => {
    const app = await bulkApp();
    const cases: Array<[string, number, string | undefined]> = [
      [`/api/v1/data/svc/${app.tenant}/${app.code}/big`, (1 << 20) + 1, app.feed],
      [`/api/v1/data/bulk/svc/${app.tenant}/${app.code}`, (32 << 20) + 1, app.feed],
      [`/api/v1/search/${app.tenant}/${app.code}`, (1 << 20) + 1, undefined],
      [`/api/v1/agent/chat/${app.tenant}/helper`, (32 << 20) + 1, AGENT_TOKEN],
    ];
    for (const [path, bytes, token] of cases) {
      const res = await call('POST', path, { token, rawBody: streamedBody(bytes), headers: { 'Content-Type': 'application/json' } });
      await expectError(res, 413);
    }
  });

  it('a streamed body under the limit is read as usual', async () => {
    const app = await bulkApp();
    const text = JSON.stringify([envelope('s-1', { name: 'streamed' })]);
    const stream = new Blob([text]).stream();
    const res = await call('POST', `/api/v1/data/bulk/svc/${app.tenant}/${app.code}`, {
      token: app.feed,
      rawBody: stream,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect((await json(res)).documents).toEqual([expect.objectContaining({ documentId: 's-1', state: 'CREATED' })]);
  });

  it('an upload entry that never ends is 400 once it passes 1 M characters', async () => {
    const app = await bulkApp();
    const boundary = 'b0undary';
    const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\n{"header":"`);
    const filler = streamedBody(2 << 20);
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(head);
        for await (const chunk of filler) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await call('POST', `/api/v1/data/upload/svc/${app.tenant}/${app.code}`, {
      token: app.feed,
      rawBody: body,
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    });
    await expectError(res, 400, 'file');
  });
});

async function bulkApp() {
  const app = await feedingApp();
  expect((await bulk(app, [])).status).toBe(200);
  return app;
}
