import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AGENT_TOKEN, call, createToken, expectOk, json } from '../helpers';
import { envelope, feedingApp, type FeedingApp } from '../feeding/helpers';

/**
 * Tenant isolation over every authenticated route: a missing, garbage, revoked, other-tenant, wrong-kind or
 * READ-for-WRITE credential never gets a 2xx, nor anything of the tenant it is not for.
 */

type Kind = 'admin' | 'feeding';
interface Route {
  method: string;
  path: (app: FeedingApp) => string;
  kind: Kind;
  write: boolean;
  body?: unknown;
}

const data = (app: FeedingApp) => `${app.tenant}/${app.code}`;
const TENANT_ROUTES: Route[] = [
  { method: 'GET', path: (a) => `/api/v1/searchapp/schema/${data(a)}`, kind: 'admin', write: false },
  { method: 'PUT', path: (a) => `/api/v1/searchapp/schema/${data(a)}`, kind: 'admin', write: true, body: { fields: [] } },
  {
    method: 'POST',
    path: (a) => `/api/v1/data/svc/${data(a)}/doc-1`,
    kind: 'feeding',
    write: true,
    body: envelope('doc-1', { name: 'x' }),
  },
  { method: 'DELETE', path: (a) => `/api/v1/data/svc/${data(a)}/doc-1`, kind: 'feeding', write: true },
  { method: 'GET', path: (a) => `/api/v1/data/${data(a)}/secret-doc`, kind: 'feeding', write: false },
  {
    method: 'POST',
    path: (a) => `/api/v1/data/bulk/svc/${data(a)}`,
    kind: 'feeding',
    write: true,
    body: [envelope('doc-2', { name: 'x' })],
  },
  { method: 'POST', path: (a) => `/api/v1/data/fullfeed/start/${data(a)}`, kind: 'feeding', write: true, body: {} },
  { method: 'POST', path: (a) => `/api/v1/data/fullfeed/end/${data(a)}`, kind: 'feeding', write: true, body: {} },
  { method: 'POST', path: (a) => `/api/v1/data/fullfeed/cancel/${data(a)}`, kind: 'feeding', write: true },
  { method: 'GET', path: (a) => `/api/v1/data/fullfeed/status/${data(a)}`, kind: 'feeding', write: false },
  { method: 'GET', path: (a) => `/api/v1/data/queue/${data(a)}`, kind: 'feeding', write: false },
  { method: 'GET', path: (a) => `/api/v1/data/queue/${data(a)}/1`, kind: 'feeding', write: false },
  { method: 'PUT', path: (a) => `/api/v1/job/${data(a)}/feeding/_schedule`, kind: 'feeding', write: true, body: {} },
  { method: 'GET', path: (a) => `/api/v1/job/${data(a)}/some-job`, kind: 'feeding', write: false },
];

const ROOT_ROUTES: Array<[string, (app: FeedingApp) => string, unknown?]> = [
  ['GET', () => '/api/v1/admin/tenants'],
  ['GET', (a) => `/api/v1/admin/tenants/${a.tenant}`],
  ['PUT', (a) => `/api/v1/admin/tenants/${a.tenant}`, {}],
  ['DELETE', (a) => `/api/v1/admin/tenants/${a.tenant}`],
  ['GET', (a) => `/api/v1/admin/searchapps/${a.tenant}`],
  ['PUT', (a) => `/api/v1/admin/searchapps/${data(a)}`, {}],
  ['DELETE', (a) => `/api/v1/admin/searchapps/${data(a)}`],
  ['GET', (a) => `/api/v1/admin/tokens/${a.tenant}`],
  ['POST', (a) => `/api/v1/admin/tokens/${a.tenant}`, { kind: 'admin', permission: 'WRITE' }],
  ['DELETE', (a) => `/api/v1/admin/tokens/${a.tenant}/x`],
  ['GET', (a) => `/api/v1/admin/agents/${a.tenant}`],
  ['PUT', (a) => `/api/v1/admin/agents/${a.tenant}/helper`, { llm_models: [{ model: 'openai:x' }] }],
  ['GET', (a) => `/api/v1/admin/email/${a.tenant}`],
  ['PUT', (a) => `/api/v1/admin/email/${a.tenant}/mail`, { subject: 'x' }],
  ['GET', (a) => `/api/v1/admin/email/${a.tenant}/mail/deliveries`],
];

async function expectRefused(res: Response, label: string, otherTenant: string) {
  const text = await res.text();
  expect(res.status, `${label}: ${text}`).toBeGreaterThanOrEqual(400);
  expect(res.status, label).toBeLessThan(500);
  expect(JSON.parse(text), label).toMatchObject({ statusCode: res.status, error: expect.any(String), message: expect.any(String) });
  expect(text, label).not.toContain('secret-payload');
  expect(text, label).not.toContain(otherTenant + '-only');
}

describe('isolation', () => {
  it('tenant-token routes refuse missing, garbage, revoked, other-tenant, wrong-kind and READ-for-WRITE tokens', async () => {
    const victim = await feedingApp();
    const attacker = await feedingApp();
    await expectOk(
      call('POST', `/api/v1/data/svc/${data(victim)}/secret-doc`, {
        token: victim.feed,
        body: envelope('secret-doc', { name: 'secret-payload' }),
      }),
    );
    const revoked = await createToken(victim.tenant, 'feeding');
    await expectOk(call('DELETE', `/api/v1/admin/tokens/${victim.tenant}/${revoked.id}`, { token: ADMIN_TOKEN }));
    const readOnly = {
      admin: (await createToken(victim.tenant, 'admin', 'READ')).token,
      feeding: (await createToken(victim.tenant, 'feeding', 'READ')).token,
    };
    const own = { admin: victim.admin, feeding: victim.feed };
    const otherKind = { admin: victim.feed, feeding: victim.admin };

    let checks = 0;
    for (const route of TENANT_ROUTES) {
      const tokens: Array<[string, string | undefined]> = [
        ['missing', undefined],
        ['garbage', 'sst_garbage.garbage'],
        ['revoked', revoked.token],
        ['other tenant', route.kind === 'admin' ? attacker.admin : attacker.feed],
        ['wrong kind', otherKind[route.kind]],
        ['root token', ADMIN_TOKEN],
        ['agent token', AGENT_TOKEN],
      ];
      if (route.write) tokens.push(['READ for WRITE', readOnly[route.kind]]);
      for (const [label, token] of tokens) {
        await expectRefused(
          await call(route.method, route.path(victim), { token, body: route.body }),
          `${route.method} ${route.path(victim)} with ${label}`,
          victim.tenant,
        );
        checks++;
      }
    }
    expect(checks).toBeGreaterThan(100);
    // Nothing was changed by the refused calls.
    expect(await json(await call('GET', `/api/v1/data/${data(victim)}/secret-doc`, { token: victim.feed }))).toEqual([
      { id: 'secret-doc', name: 'secret-payload' },
    ]);
    // The owner's own tokens are not refused for authorization reasons (after the check above: these change things).
    for (const route of TENANT_ROUTES) {
      const ownAnswer = await call(route.method, route.path(victim), { token: own[route.kind], body: route.body });
      expect([401, 403], `${route.method} ${route.path(victim)} with its own token`).not.toContain(ownAnswer.status);
    }
  });

  it('root-token routes refuse tenant tokens, the agent token, garbage and nothing', async () => {
    const victim = await feedingApp();
    for (const [method, path, body] of ROOT_ROUTES) {
      for (const [label, token] of [
        ['missing', undefined],
        ['garbage', 'x'],
        ['tenant admin', victim.admin],
        ['agent token', AGENT_TOKEN],
      ] as const) {
        const res = await call(method, path(victim), { token, body });
        expect(res.status, `${method} ${path(victim)} with ${label}`).toBe(401);
      }
    }
  });

  it('chat refuses every token but the agent token; email send refuses every key but its own, for known and unknown configurations alike', async () => {
    const victim = await feedingApp();
    await expectOk(
      call('PUT', `/api/v1/admin/agents/${victim.tenant}/helper`, { token: ADMIN_TOKEN, body: { llm_models: [{ model: 'openai:x' }] } }),
    );
    for (const path of [`/api/v1/agent/chat/${victim.tenant}/helper`, `/api/v1/agent/chat/streaming/${victim.tenant}/helper`]) {
      for (const token of [undefined, 'x', ADMIN_TOKEN, victim.admin, victim.feed]) {
        expect((await call('POST', path, { token, body: { type: 'init' } })).status).toBe(401);
      }
    }
    const mine = await json(
      await expectOk(
        call('PUT', `/api/v1/admin/email/${victim.tenant}/mail`, { token: ADMIN_TOKEN, body: { security: { type: 'apiKey' } } }),
      ),
    );
    const other = await feedingApp();
    const theirs = await json(
      await expectOk(
        call('PUT', `/api/v1/admin/email/${other.tenant}/mail`, { token: ADMIN_TOKEN, body: { security: { type: 'apiKey' } } }),
      ),
    );
    const answers = new Set<string>();
    for (const config of ['mail', 'unknown']) {
      for (const key of [undefined, 'x', theirs.apiKey, ADMIN_TOKEN, AGENT_TOKEN, victim.admin]) {
        const res = await call('POST', `/api/v1/email/send/${victim.tenant}/${config}`, {
          headers: key ? { 'X-Service-Token': key } : {},
          body: { target: 'a@example.org' },
        });
        answers.add(`${res.status} ${await res.text()}`);
      }
    }
    expect([...answers]).toEqual(['401 {"statusCode":401,"error":"Unauthorized","message":"Missing or invalid API key"}']);
    // Its own key passes authentication (the configuration is incomplete: 409).
    expect(
      (
        await call('POST', `/api/v1/email/send/${victim.tenant}/mail`, {
          headers: { 'X-Service-Token': mine.apiKey },
          body: { target: 'a@example.org' },
        })
      ).status,
    ).toBe(409);
  });
});
