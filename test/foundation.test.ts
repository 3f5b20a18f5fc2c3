import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTenantWithApp, createToken, json, uniqueCode } from './helpers';

const schema = { fields: [{ code: 'title', dataType: 'string' }] };

describe('admin API', () => {
  it('answers 401 without the root token, with a wrong one, and with a tenant token', async () => {
    const { tenant } = await createTenantWithApp();
    const { token } = await createToken(tenant, 'admin');
    for (const t of [undefined, 'wrong', token]) {
      const res = await call('PUT', `/api/v1/admin/tenants/${uniqueCode('x')}`, { token: t, body: {} });
      expect(res.status).toBe(401);
      const message = `Missing or invalid token: this endpoint needs the root admin token (ADMIN_TOKEN)${t === token ? '; a tenant token was presented' : ''}`;
      expect(await json(res)).toEqual({ statusCode: 401, error: 'Unauthorized', message });
    }
  });

  it('creates and updates a tenant, then a search app with sorts', async () => {
    const tenant = uniqueCode('boot');
    let res = await call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: {} });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ code: tenant, name: tenant });
    res = await call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: { name: 'Shop' } });
    expect(await json(res)).toMatchObject({ code: tenant, name: 'Shop' });

    const sorts = [{ id: 'newest', field: 'date', direction: 'desc' }];
    res = await call('PUT', `/api/v1/admin/searchapps/${tenant}/shop`, { token: ADMIN_TOKEN, body: { sorts } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ tenantCode: tenant, code: 'shop', name: 'shop', fields: [], sorts });
    // Renaming keeps the sorts.
    res = await call('PUT', `/api/v1/admin/searchapps/${tenant}/shop`, { token: ADMIN_TOKEN, body: { name: 'Shop' } });
    expect(await json(res)).toMatchObject({ name: 'Shop', sorts });
  });

  it('answers 404 for a search app of an unknown tenant', async () => {
    const res = await call('PUT', `/api/v1/admin/searchapps/${uniqueCode('none')}/shop`, { token: ADMIN_TOKEN, body: {} });
    expect(res.status).toBe(404);
    expect((await json(res)).message).toMatch(/Tenant .* not found/);
  });

  it('rejects invalid codes and bodies with details', async () => {
    const res = await call('PUT', `/api/v1/admin/searchapps/x/y`, {
      token: ADMIN_TOKEN,
      body: { sorts: [{ id: 'a', field: 'f', direction: 'up' }], extra: 1 },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'sorts.0.direction' }), expect.objectContaining({ path: '(root)' })]),
    );
  });
});

describe('tenant tokens', () => {
  it('shows the plaintext once and stores only its SHA-256', async () => {
    const { tenant } = await createTenantWithApp();
    const res = await call('POST', `/api/v1/admin/tokens/${tenant}`, {
      token: ADMIN_TOKEN,
      body: { kind: 'feeding', permission: 'READ', name: 'ci' },
    });
    expect(res.status).toBe(201);
    const issued = await json(res);
    expect(issued).toMatchObject({ kind: 'feeding', permission: 'READ', name: 'ci' });
    expect(issued.token).toMatch(/^sst_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/);

    const row = await env.DB.prepare('SELECT * FROM api_tokens WHERE id = ?').bind(issued.id).first<Record<string, string>>();
    const secret = issued.token.split('.')[1];
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    expect(row?.secret_hash).toBe(hex);
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it('stops working at once when revoked', async () => {
    const { tenant, code } = await createTenantWithApp();
    const { id, token } = await createToken(tenant, 'admin');
    const put = () => call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, { token, body: schema });
    expect((await put()).status).toBe(200);
    const del = await call('DELETE', `/api/v1/admin/tokens/${tenant}/${id}`, { token: ADMIN_TOKEN });
    expect(del.status).toBe(204);
    expect((await put()).status).toBe(401);
    expect((await call('DELETE', `/api/v1/admin/tokens/${tenant}/${id}`, { token: ADMIN_TOKEN })).status).toBe(404);
  });

  it('rejects a tampered secret of an existing token id', async () => {
    const { tenant, code } = await createTenantWithApp();
    const { token } = await createToken(tenant, 'admin');
    const tampered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    const res = await call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, { token: tampered, body: schema });
    expect(res.status).toBe(401);
  });
});

describe('authorization matrix of the schema endpoint', () => {
  it('answers 401, 403 and 404 as the interface says', async () => {
    const a = await createTenantWithApp('a');
    const b = await createTenantWithApp('b');
    const adminA = (await createToken(a.tenant, 'admin', 'WRITE')).token;
    const readA = (await createToken(a.tenant, 'admin', 'READ')).token;
    const feedA = (await createToken(a.tenant, 'feeding', 'WRITE')).token;
    const put = (tenant: string, code: string, token?: string) =>
      call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, { token, body: schema });

    expect((await put(a.tenant, a.code)).status).toBe(401);
    expect((await put(a.tenant, a.code, 'sst_nope')).status).toBe(401);
    expect((await put(a.tenant, a.code, readA)).status).toBe(403);
    expect((await put(a.tenant, a.code, feedA)).status).toBe(403);
    // Another tenant's token, for an existing and for a missing tenant: the same 403.
    expect((await put(b.tenant, b.code, adminA)).status).toBe(403);
    expect((await put(uniqueCode('ghost'), 'x', adminA)).status).toBe(403);
    const missing = await put(a.tenant, 'no-such-app', adminA);
    expect(missing.status).toBe(404);
    expect((await json(missing)).message).toMatch(/Search app .* not found/);
    expect((await put(a.tenant, a.code, adminA)).status).toBe(200);
  });
});

describe('schema update', () => {
  it('fills defaults and answers the stored schema', async () => {
    const { tenant, code } = await createTenantWithApp();
    const { token } = await createToken(tenant, 'admin');
    const res = await call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, {
      token,
      body: {
        fields: [
          { code: 'title', dataType: 'string', weight: 5 },
          { code: 'price', dataType: 'double', sort: true },
        ],
      },
    });
    expect(res.status).toBe(200);
    const flags = { display: false, facet: false, sort: false, suggest: false, navigation: false, semantic: false };
    expect(await json(res)).toEqual({
      fields: [
        { code: 'title', dataType: 'string', searchMode: 'balanced', weight: 5, ...flags },
        { code: 'price', dataType: 'double', searchMode: 'off', weight: 1, ...flags, sort: true },
      ],
    });
    const row = await env.DB.prepare('SELECT fields FROM search_apps WHERE tenant_code = ?').bind(tenant).first<{ fields: string }>();
    expect(JSON.parse(row!.fields)).toHaveLength(2);
  });

  it('lists every invalid field in details', async () => {
    const { tenant, code } = await createTenantWithApp();
    const { token } = await createToken(tenant, 'admin');
    const res = await call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, {
      token,
      body: {
        fields: [
          { code: 'a', dataType: 'long', searchMode: 'fuzzy' },
          { code: 'a', dataType: 'string' },
          { code: 'b', dataType: 'text' },
        ],
      },
    });
    expect(res.status).toBe(400);
    const { details } = await json(res);
    expect(details.map((d: { path: string }) => d.path).sort()).toEqual(['fields.0.searchMode', 'fields.1.code', 'fields.2.dataType']);
  });
});

describe('error shape', () => {
  it('answers malformed JSON with 400, not 500', async () => {
    const { tenant, code } = await createTenantWithApp();
    const { token } = await createToken(tenant, 'admin');
    const res = await call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, {
      token,
      rawBody: '{"fields": [',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(typeof body.message).toBe('string');
  });

  it('answers unknown routes with 404 in the same shape', async () => {
    const res = await call('GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ statusCode: 404, error: 'Not Found', message: 'No route for GET /api/v1/nothing-here' });
  });
});
