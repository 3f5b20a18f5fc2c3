import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createToken, expectOk, json, uniqueCode } from '../helpers';
import { allSettled, bulk, debianEnvelopes, feedingApp } from '../feeding/helpers';

/** Rows left anywhere in D1 for a tenant (directly or through its search apps, agents and email configurations). */
async function rowsOf(tenant: string): Promise<Record<string, number>> {
  const count = async (sql: string) => (await env.DB.prepare(sql).bind(tenant).first<{ n: number }>())!.n;
  return {
    tenants: await count('SELECT count(*) AS n FROM tenants WHERE code = ?'),
    searchApps: await count('SELECT count(*) AS n FROM search_apps WHERE tenant_code = ?'),
    tokens: await count('SELECT count(*) AS n FROM api_tokens WHERE tenant_code = ?'),
    agents: await count('SELECT count(*) AS n FROM agents WHERE tenant_code = ?'),
    emailConfigs: await count('SELECT count(*) AS n FROM email_configs WHERE tenant_code = ?'),
  };
}

describe('reading what was created', () => {
  it('lists tenants, search apps and tokens (never the secret, with last use), and reads the schema with a READ admin token', async () => {
    const app = await feedingApp();
    const { tenants } = await json(await expectOk(call('GET', '/api/v1/admin/tenants', { token: ADMIN_TOKEN })));
    expect(tenants.map((t: { code: string }) => t.code)).toContain(app.tenant);
    expect(await json(await call('GET', `/api/v1/admin/tenants/${app.tenant}`, { token: ADMIN_TOKEN }))).toMatchObject({
      code: app.tenant,
    });
    expect((await call('GET', `/api/v1/admin/tenants/${uniqueCode('none')}`, { token: ADMIN_TOKEN })).status).toBe(404);

    const { searchApps } = await json(await expectOk(call('GET', `/api/v1/admin/searchapps/${app.tenant}`, { token: ADMIN_TOKEN })));
    expect(searchApps.map((a: { code: string }) => a.code)).toEqual([app.code]);
    const one = await json(await expectOk(call('GET', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN })));
    expect(one.fields.length).toBeGreaterThan(0);

    const reader = await createToken(app.tenant, 'admin', 'READ');
    const schema = await json(await expectOk(call('GET', `/api/v1/searchapp/schema/${app.tenant}/${app.code}`, { token: reader.token })));
    expect(schema.fields).toEqual(one.fields);

    const listed = await json(await expectOk(call('GET', `/api/v1/admin/tokens/${app.tenant}`, { token: ADMIN_TOKEN })));
    expect(listed.tokens).toHaveLength(3);
    const readerInfo = listed.tokens.find((t: { id: string }) => t.id === reader.id);
    expect(readerInfo).toMatchObject({ kind: 'admin', permission: 'READ', name: null });
    expect(readerInfo.lastUsedAt).toEqual(expect.any(String));
    expect(JSON.stringify(listed)).not.toContain(reader.token.split('.')[1]);
    expect(JSON.stringify(listed)).not.toMatch(/secret|hash/i);
  });

  it('names the token an endpoint needs when another kind is presented', async () => {
    const app = await feedingApp();
    let res = await call('GET', `/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN });
    expect(res.status).toBe(401);
    expect((await json(res)).message).toBe('Missing or invalid token: this endpoint needs a tenant feeding token (sst_<id>.<secret>)');
    res = await call('GET', `/api/v1/searchapp/schema/${app.tenant}/${app.code}`, { token: app.feed });
    expect(res.status).toBe(403);
    expect((await json(res)).message).toBe('This endpoint needs a tenant admin token; a feeding token was presented');
    res = await call('GET', '/api/v1/admin/tenants', { token: app.feed });
    expect(res.status).toBe(401);
    expect((await json(res)).message).toBe(
      'Missing or invalid token: this endpoint needs the root admin token (ADMIN_TOKEN); a tenant token was presented',
    );
  });

  it('names the expected type in type errors', async () => {
    const app = await feedingApp();
    const res = await call('PUT', `/api/v1/searchapp/schema/${app.tenant}/${app.code}`, {
      token: app.admin,
      body: { fields: [{ code: 'name', dataType: 'string', weight: 'heavy' }] },
    });
    expect((await json(res)).details).toEqual([{ path: 'fields.0.weight', message: 'expected number, received string' }]);
    const answer = await json(
      await bulk(app, [...debianEnvelopes.slice(0, 1), { header: { id: 'x', action: 'update' }, payload: { name: 3 } }]),
    );
    expect(answer.documents[1].error).toBe('1.payload.name: expected string or array, received number');
  });
});

describe('deleting', () => {
  it('deletes a search app with its documents, index, snapshots and queue entries; a new app of the same code starts empty', async () => {
    const app = await feedingApp();
    const fed = await json(await bulk(app, debianEnvelopes.slice(0, 30)));
    await allSettled(
      app,
      fed.documents.map((d: { id: number }) => d.id),
    );
    expect(await runDurableObjectAlarm(app.searchApp.stub)).toBe(true);
    expect(await app.searchApp.stats()).toMatchObject({ documents: 30 });
    expect((await app.searchApp.stats()).snapshotSeq).toBeGreaterThan(0);
    const { id: appId } = (await env.DB.prepare('SELECT id FROM search_apps WHERE tenant_code = ?')
      .bind(app.tenant)
      .first<{ id: number }>())!;

    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await call('DELETE', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN })).status).toBe(204);
    }
    const entries = await env.DB.prepare('SELECT count(*) AS n FROM feeding_operations WHERE app_id = ?')
      .bind(appId)
      .first<{ n: number }>();
    expect(entries!.n).toBe(0);
    expect(await app.searchApp.stats()).toEqual({ documents: 0, indexed: 0, seq: 0, snapshotSeq: 0 });
    expect((await call('GET', `/api/v1/search/${app.tenant}/${app.code}?q=`)).status).toBe(404);

    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: {} }));
    expect((await app.searchApp.stats()).documents).toBe(0);
  });

  it('deletes a tenant with everything it owns, nothing orphaned, and answers 204 again on retry', async () => {
    const app = await feedingApp();
    await expectOk(
      call('PUT', `/api/v1/admin/agents/${app.tenant}/helper`, {
        token: ADMIN_TOKEN,
        body: { llm_models: [{ model: 'openai:gpt-4o-mini' }] },
      }),
    );
    await expectOk(call('PUT', `/api/v1/admin/email/${app.tenant}/welcome`, { token: ADMIN_TOKEN, body: { from: 'a@example.org' } }));
    const { agents } = await json(await expectOk(call('GET', `/api/v1/admin/agents/${app.tenant}`, { token: ADMIN_TOKEN })));
    expect(agents.map((a: { code: string }) => a.code)).toEqual(['helper']);
    const { emailConfigs } = await json(await expectOk(call('GET', `/api/v1/admin/email/${app.tenant}`, { token: ADMIN_TOKEN })));
    expect(emailConfigs.map((e: { code: string }) => e.code)).toEqual(['welcome']);
    const fed = await json(await bulk(app, debianEnvelopes.slice(0, 5)));
    await allSettled(
      app,
      fed.documents.map((d: { id: number }) => d.id),
    );
    expect((await app.searchApp.stats()).documents).toBe(5);

    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await call('DELETE', `/api/v1/admin/tenants/${app.tenant}`, { token: ADMIN_TOKEN })).status).toBe(204);
    }
    expect(await rowsOf(app.tenant)).toEqual({ tenants: 0, searchApps: 0, tokens: 0, agents: 0, emailConfigs: 0 });
    const orphans = await env.DB.prepare(
      'SELECT count(*) AS n FROM feeding_operations WHERE app_id NOT IN (SELECT id FROM search_apps)',
    ).first<{
      n: number;
    }>();
    expect(orphans!.n).toBe(0);
    expect((await app.searchApp.stats()).documents).toBe(0);
    expect((await call('GET', `/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, { token: app.feed })).status).toBe(401);
  });

  it('deletes agent and email configurations', async () => {
    const app = await feedingApp();
    await expectOk(
      call('PUT', `/api/v1/admin/agents/${app.tenant}/helper`, {
        token: ADMIN_TOKEN,
        body: { llm_models: [{ model: 'openai:gpt-4o-mini' }] },
      }),
    );
    await expectOk(call('PUT', `/api/v1/admin/email/${app.tenant}/welcome`, { token: ADMIN_TOKEN, body: { from: 'a@example.org' } }));
    expect((await call('DELETE', `/api/v1/admin/agents/${app.tenant}/helper`, { token: ADMIN_TOKEN })).status).toBe(204);
    expect((await call('DELETE', `/api/v1/admin/email/${app.tenant}/welcome`, { token: ADMIN_TOKEN })).status).toBe(204);
    expect((await call('GET', `/api/v1/admin/agents/${app.tenant}/helper`, { token: ADMIN_TOKEN })).status).toBe(404);
    expect((await call('GET', `/api/v1/admin/email/${app.tenant}/welcome`, { token: ADMIN_TOKEN })).status).toBe(404);
  });
});
