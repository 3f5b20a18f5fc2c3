import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AGENT_TOKEN, call, createToken, expectOk, json } from '../helpers';
import { envelope, feedingApp, type FeedingApp } from '../feeding/helpers';
import { openApiDocument } from '../../src/http/openapi';

/**
 * Tenant isolation over every authenticated route: a missing, garbage, revoked, other-tenant, wrong-kind or
 * READ-for-WRITE credential never gets a 2xx, nor anything of the tenant it is not for.
 */

type Kind = 'admin' | 'feeding';
interface Route {
  /** `METHOD template`, as the OpenAPI document names it. */
  route: string;
  kind: Kind;
  write: boolean;
  body?: unknown;
}

/** The path of `route` (`METHOD /…/{param}`) for the app: its tenant and code, and fixed values for the rest. */
function pathOf(route: string, app: FeedingApp): string {
  const values: Record<string, string> = {
    tenant: app.tenant,
    tenantCode: app.tenant,
    code: app.code,
    emailConfigCode: 'mail',
    type: 'svc',
    documentId: 'secret-doc',
    id: '1',
    jobId: 'some-job',
  };
  return route.split(' ')[1].replace(/\{(\w+)\}/g, (_, name: string) => values[name]);
}
const methodOf = (route: string) => route.split(' ')[0];
const data = (app: FeedingApp) => `${app.tenant}/${app.code}`;

const TENANT_ROUTES: Route[] = [
  { route: 'GET /api/v1/searchapp/schema/{tenant}/{code}', kind: 'admin', write: false },
  { route: 'PUT /api/v1/searchapp/schema/{tenant}/{code}', kind: 'admin', write: true, body: { fields: [] } },
  {
    route: 'POST /api/v1/data/{type}/{tenant}/{code}/{documentId}',
    kind: 'feeding',
    write: true,
    body: envelope('secret-doc', { name: 'overwritten' }),
  },
  { route: 'DELETE /api/v1/data/{type}/{tenant}/{code}/{documentId}', kind: 'feeding', write: true },
  { route: 'GET /api/v1/data/{tenant}/{code}/{documentId}', kind: 'feeding', write: false },
  { route: 'POST /api/v1/data/bulk/{type}/{tenant}/{code}', kind: 'feeding', write: true, body: [envelope('doc-2', { name: 'x' })] },
  { route: 'POST /api/v1/data/upload/{type}/{tenant}/{code}', kind: 'feeding', write: true, body: [envelope('doc-3', { name: 'x' })] },
  { route: 'POST /api/v1/data/fullfeed/start/{tenant}/{code}', kind: 'feeding', write: true, body: {} },
  { route: 'POST /api/v1/data/fullfeed/end/{tenant}/{code}', kind: 'feeding', write: true, body: {} },
  { route: 'POST /api/v1/data/fullfeed/cancel/{tenant}/{code}', kind: 'feeding', write: true },
  { route: 'GET /api/v1/data/fullfeed/status/{tenant}/{code}', kind: 'feeding', write: false },
  { route: 'GET /api/v1/data/queue/{tenant}/{code}', kind: 'feeding', write: false },
  { route: 'GET /api/v1/data/queue/{tenant}/{code}/{id}', kind: 'feeding', write: false },
  { route: 'PUT /api/v1/job/{tenant}/{code}/feeding/_schedule', kind: 'feeding', write: true, body: {} },
  { route: 'GET /api/v1/job/{tenant}/{code}/{jobId}', kind: 'feeding', write: false },
];

const ROOT_ROUTES: Array<[string, unknown?]> = [
  ['GET /api/v1/admin/tenants'],
  ['GET /api/v1/admin/tenants/{tenant}'],
  ['PUT /api/v1/admin/tenants/{tenant}', {}],
  ['DELETE /api/v1/admin/tenants/{tenant}'],
  ['GET /api/v1/admin/searchapps/{tenant}'],
  ['GET /api/v1/admin/searchapps/{tenant}/{code}'],
  ['PUT /api/v1/admin/searchapps/{tenant}/{code}', {}],
  ['DELETE /api/v1/admin/searchapps/{tenant}/{code}'],
  ['GET /api/v1/admin/tokens/{tenant}'],
  ['POST /api/v1/admin/tokens/{tenant}', { kind: 'admin', permission: 'WRITE' }],
  ['DELETE /api/v1/admin/tokens/{tenant}/{id}'],
  ['GET /api/v1/admin/agents/{tenant}'],
  ['GET /api/v1/admin/agents/{tenant}/{code}'],
  ['PUT /api/v1/admin/agents/{tenant}/{code}', { llm_models: [{ model: 'openai:x' }] }],
  ['DELETE /api/v1/admin/agents/{tenant}/{code}'],
  ['GET /api/v1/admin/email/{tenant}'],
  ['GET /api/v1/admin/email/{tenant}/{code}'],
  ['PUT /api/v1/admin/email/{tenant}/{code}', { subject: 'x' }],
  ['DELETE /api/v1/admin/email/{tenant}/{code}'],
  ['GET /api/v1/admin/email/{tenant}/{code}/deliveries'],
];

const CHAT_ROUTES = ['POST /api/v1/agent/chat/{tenant}/{code}', 'POST /api/v1/agent/chat/streaming/{tenant}/{code}'];
const EMAIL_SEND = 'POST /api/v1/email/send/{tenantCode}/{emailConfigCode}';

async function expectRefused(res: Response, label: string, otherTenant: string) {
  const text = await res.text();
  expect(res.status, `${label}: ${text}`).toBeGreaterThanOrEqual(400);
  expect(res.status, label).toBeLessThan(500);
  expect(JSON.parse(text), label).toMatchObject({ statusCode: res.status, error: expect.any(String), message: expect.any(String) });
  expect(text, label).not.toContain('secret-payload');
  expect(text, label).not.toContain(otherTenant + '-only');
}

describe('isolation', () => {
  it('covers every route the OpenAPI document says takes a credential', () => {
    const covered = new Set([...TENANT_ROUTES.map((r) => r.route), ...ROOT_ROUTES.map(([route]) => route), ...CHAT_ROUTES, EMAIL_SEND]);
    const secured = Object.entries(openApiDocument.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => 'security' in (operation as object))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(secured.length).toBeGreaterThan(30);
    expect(secured.filter((route) => !covered.has(route))).toEqual([]);
  });

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
          await call(methodOf(route.route), pathOf(route.route, victim), { token, body: route.body }),
          `${route.route} with ${label}`,
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
      const ownAnswer = await call(methodOf(route.route), pathOf(route.route, victim), { token: own[route.kind], body: route.body });
      expect([401, 403], `${route.route} with its own token`).not.toContain(ownAnswer.status);
    }
  });

  it('root-token routes refuse tenant tokens, the agent token, garbage and nothing', async () => {
    const victim = await feedingApp();
    for (const [route, body] of ROOT_ROUTES) {
      for (const [label, token] of [
        ['missing', undefined],
        ['garbage', 'x'],
        ['tenant admin', victim.admin],
        ['agent token', AGENT_TOKEN],
      ] as const) {
        const res = await call(methodOf(route), pathOf(route, victim), { token, body });
        expect(res.status, `${route} with ${label}`).toBe(401);
      }
    }
  });

  it('chat refuses every token but the agent token; email send refuses every key but its own, for known and unknown configurations alike', async () => {
    const victim = await feedingApp();
    await expectOk(
      call('PUT', `/api/v1/admin/agents/${victim.tenant}/helper`, { token: ADMIN_TOKEN, body: { llm_models: [{ model: 'openai:x' }] } }),
    );
    for (const path of CHAT_ROUTES.map((route) => pathOf(route, { ...victim, code: 'helper' }))) {
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
    for (const path of [pathOf(EMAIL_SEND, victim), pathOf(EMAIL_SEND, victim).replace(/mail$/, 'unknown')]) {
      for (const key of [undefined, 'x', theirs.apiKey, ADMIN_TOKEN, AGENT_TOKEN, victim.admin]) {
        const res = await call('POST', path, {
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
        await call('POST', pathOf(EMAIL_SEND, victim), {
          headers: { 'X-Service-Token': mine.apiKey },
          body: { target: 'a@example.org' },
        })
      ).status,
    ).toBe(409);
  });
});
