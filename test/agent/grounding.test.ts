import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AGENT_TOKEN, call, createTenantWithApp, createToken, expectOk, json, waitFor } from '../helpers';
import type { ReceivedCompletion } from './openai-contract';

const STAND_IN = () => `http://127.0.0.1:${env.OPENAI_STAND_IN_PORT}`;

describe('chat: grounding end to end', () => {
  it('the model searches the fed search app through the tool and references the document with an SVCACTION', async () => {
    const { tenant, code: app } = await createTenantWithApp('ground');
    const admin = await createToken(tenant, 'admin');
    const feeding = await createToken(tenant, 'feeding');
    const fields = [
      { code: 'name', dataType: 'string', display: true },
      { code: 'description', dataType: 'string', display: true },
    ];
    await expectOk(call('PUT', `/api/v1/searchapp/schema/${tenant}/${app}`, { token: admin.token, body: { fields } }));
    await expectOk(call('PUT', `/api/v1/job/${tenant}/${app}/feeding/_schedule`, { token: feeding.token, body: {} }));
    for (const [id, description] of [
      ['zlib1g', 'compression library'],
      ['curl', 'command line tool for transferring data'],
    ]) {
      await expectOk(
        call('POST', `/api/v1/data/svc/${tenant}/${app}/${id}`, {
          token: feeding.token,
          body: { header: { id, action: 'update' }, payload: { name: id, description } },
        }),
      );
    }
    await waitFor(
      async () => (await json(await call('GET', `/api/v1/search/${tenant}/${app}?q=compression`))).result?.total,
      (total) => total === 1,
    );

    const tag = `ground-${tenant}`;
    await expectOk(
      call('PUT', `/api/v1/admin/agents/${tenant}/helper`, {
        token: ADMIN_TOKEN,
        body: { llm_models: [{ model: 'openai:gpt-4o-mini' }], search_app: app, openai: { baseUrl: `${STAND_IN()}/t/${tag}/v1` } },
      }),
    );
    const answer = await json(
      await call('POST', `/api/v1/agent/chat/${tenant}/helper`, { token: AGENT_TOKEN, body: { text: 'SEARCH:compression' } }),
    );
    expect(answer.data).toBe('Found zlib1g [[SVCACTION]]{"action":"open","id":"zlib1g"}');

    const requests: ReceivedCompletion[] = await (await fetch(`${STAND_IN()}/control/received/${tag}`)).json();
    const toolMessage = requests[1].body.messages.at(-1)!;
    expect(toolMessage.role).toBe('tool');
    expect(JSON.parse(toolMessage.content as string)).toEqual({
      total: 1,
      documents: [{ id: 'zlib1g', fields: { name: 'zlib1g', description: 'compression library' } }],
    });
  });
});
