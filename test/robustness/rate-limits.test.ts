import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AGENT_TOKEN, call, expectOk, json } from '../helpers';
import { feedingApp } from '../feeding/helpers';

/** Rate limits: a tier's requests per 10 s, then 429 with Retry-After in the one error body; tiers per configuration. */

async function statuses(count: number, send: () => Promise<Response>) {
  const answers: Response[] = [];
  for (let i = 0; i < count; i++) answers.push(await send());
  return answers;
}

async function expectLimited(res: Response) {
  expect(res.status).toBe(429);
  expect(res.headers.get('Retry-After')).toBe('10');
  expect(await json(res)).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'Too many requests; retry after 10 s' });
}

describe('rate limits', () => {
  it('search and suggest: per client address and search app, by the app tier', async () => {
    const app = await feedingApp();
    const search = (ip: string) => () =>
      call('GET', `/api/v1/search/${app.tenant}/${app.code}?q=x`, { headers: { 'CF-Connecting-IP': ip } });
    await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { rateLimit: 'low' } }));
    const answers = await statuses(11, search('198.51.100.1'));
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
    await expectLimited(answers[10]);
    const suggest = await call('GET', `/api/v1/search/suggest/${app.tenant}/${app.code}?q=x`, {
      headers: { 'CF-Connecting-IP': '198.51.100.1' },
    });
    await expectLimited(suggest);
    // Another client of the same app is not affected.
    expect((await search('198.51.100.2')()).status).toBe(200);

    // `off` lifts the limit (the admin API answers the tier).
    const updated = await json(
      await expectOk(call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body: { rateLimit: 'off' } })),
    );
    expect(updated.rateLimit).toBe('off');
  });

  it('email send: per configuration (its API key)', async () => {
    const { tenant } = await feedingApp();
    const config = await json(
      await expectOk(
        call('PUT', `/api/v1/admin/email/${tenant}/limited`, {
          token: ADMIN_TOKEN,
          body: { subject: 'Hi', security: { type: 'apiKey' }, rateLimit: 'low' },
        }),
      ),
    );
    expect(config.rateLimit).toBe('low');
    // Incomplete configuration: every authenticated send answers 409 until the tier's 10 are spent.
    const answers = await statuses(11, () =>
      call('POST', `/api/v1/email/send/${tenant}/limited`, {
        headers: { 'X-Service-Token': config.apiKey },
        body: { target: 'a@example.org' },
      }),
    );
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(409));
    await expectLimited(answers[10]);
  });

  it('chat: per session, by the agent tier', async () => {
    const { tenant } = await feedingApp();
    await expectOk(
      call('PUT', `/api/v1/admin/agents/${tenant}/helper`, {
        token: ADMIN_TOKEN,
        body: { llm_models: [{ model: 'openai:stand-in' }], welcome_message: 'Hi', rate_limit: 'low' },
      }),
    );
    const init = (session: string) => () =>
      call('POST', `/api/v1/agent/chat/${tenant}/helper`, { token: AGENT_TOKEN, body: { type: 'init', sessionId: session } });
    const answers = await statuses(11, init('s-1'));
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
    await expectLimited(answers[10]);
    expect((await init('s-2')()).status).toBe(200);
  });
});
