import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../packages/client/src/index.ts';
import { echoFragments, type ReceivedCompletion } from '../agent/openai-contract';
import { HTTP_API_KEY, type ReceivedEmail } from '../email/stand-in-contract';
import { ADMIN_TOKEN, AGENT_TOKEN, BASE, createTenantWithApp, uniqueCode, waitFor } from '../helpers';

/** The typed client of a fresh tenant against the worker's own fetch handler (real D1 and Queues). */
async function tenantClient() {
  const { tenant } = await createTenantWithApp('client');
  return createClient({
    url: BASE,
    tenant,
    rootToken: ADMIN_TOKEN,
    agentToken: AGENT_TOKEN,
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
  });
}

describe('typed client: agents and email', () => {
  it('configures, lists, chats with (whole and streamed) and deletes an agent', async () => {
    const client = await tenantClient();
    const tag = uniqueCode('tag');
    const standIn = `http://127.0.0.1:${env.OPENAI_STAND_IN_PORT}`;
    const put = await client.putAgent('helper', {
      llm_models: [{ model: 'openai:gpt-4o-mini' }],
      openai: { baseUrl: `${standIn}/t/${tag}/v1`, apiKey: 'sk-client-test' },
    });
    expect(put).toMatchObject({ code: 'helper', openai: { apiKey: '***' } });
    expect((await client.agents()).agents.map((agent) => agent.code)).toEqual(['helper']);
    expect(await client.getAgent('helper')).toMatchObject({ default_model: 'openai:gpt-4o-mini', enabled: true });

    const whole = await client.chat('helper', { text: 'hello' });
    expect(whole).toMatchObject({ type: 'markdown', data: echoFragments('hello', 1).join('') });
    const lines = [];
    for await (const line of client.chatStream('helper', { text: 'again', sessionId: whole.session_id })) lines.push(line);
    expect(lines.filter((line) => line.streaming).map((line) => line.data)).toEqual(echoFragments('again', 3));
    expect(lines.at(-1)).toMatchObject({ streaming: false, session_id: whole.session_id });
    const received: ReceivedCompletion[] = await (await fetch(`${standIn}/control/received/${tag}`)).json();
    expect(received.map((request) => request.authorization)).toEqual(['Bearer sk-client-test', 'Bearer sk-client-test']);

    await client.deleteAgent('helper');
    await client.deleteAgent('helper');
    expect((await client.agents()).agents).toEqual([]);
    await expect(client.getAgent('helper')).rejects.toMatchObject({ status: 404 });
  });

  it('configures an email configuration, sends with its key, reads its deliveries and deletes it', async () => {
    const client = await tenantClient();
    const standIn = `http://127.0.0.1:${env.EMAIL_HTTP_PORT}`;
    const { apiKey } = await client.putEmailConfig('welcome', {
      from: 'shop@example.com',
      subject: 'Hello {{name}}',
      text: 'Hello {{name}}.',
      provider: { type: 'resend', apiKey: HTTP_API_KEY, baseUrl: standIn },
      security: { type: 'apiKey', header: 'X-Mail-Key' },
    });
    expect(apiKey).toEqual(expect.any(String));
    expect((await client.emailConfigs()).emailConfigs).toMatchObject([{ code: 'welcome', ready: true }]);

    const target = `${uniqueCode('to')}@example.com`;
    await expect(client.sendEmail('welcome', { target }, { apiKey: 'wrong', header: 'X-Mail-Key' })).rejects.toMatchObject({ status: 401 });
    await client.sendEmail('welcome', { target, variables: { name: { value: 'Ada' } } }, { apiKey: apiKey!, header: 'X-Mail-Key' });
    const [mail] = await waitFor(
      async (): Promise<ReceivedEmail[]> => (await fetch(`${standIn}/control/received?to=${encodeURIComponent(target)}`)).json(),
      (mails) => mails.length > 0,
    );
    expect(mail).toMatchObject({ subject: 'Hello Ada' });
    const { deliveries } = await waitFor(
      () => client.emailDeliveries('welcome', { limit: 5 }),
      (answer) => answer.deliveries[0]?.status === 'sent',
    );
    expect(deliveries).toMatchObject([{ target, status: 'sent' }]);

    await client.deleteEmailConfig('welcome');
    await client.deleteEmailConfig('welcome');
    expect((await client.emailConfigs()).emailConfigs).toEqual([]);
  });
});
