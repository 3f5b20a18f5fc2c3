import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { retryDelaySeconds } from '../../src/email/consumer';
import type { EmailJob } from '../../src/email/deliveries';
import type { Env } from '../../src/env';
import worker from '../../src/index';
import { ADMIN_TOKEN, call, expectOk, json, uniqueCode, waitFor } from '../helpers';
import { HTTP_API_KEY, type ReceivedEmail, SMTP_PASSWORD, SMTP_USER } from './stand-in-contract';

const standInUrl = (path: string) => `http://127.0.0.1:${env.EMAIL_HTTP_PORT}${path}`;

async function control(path: string, body: unknown): Promise<void> {
  await expectOk(fetch(standInUrl(path), { method: 'POST', body: JSON.stringify(body) }));
}

async function receivedBy(to: string): Promise<ReceivedEmail[]> {
  return (await fetch(standInUrl(`/control/received?to=${encodeURIComponent(to)}`))).json();
}

const smtpProvider = () => ({
  type: 'smtp',
  host: '127.0.0.1',
  port: env.EMAIL_SMTP_PORT,
  security: 'none',
  user: SMTP_USER,
  password: SMTP_PASSWORD,
});
const httpProvider = () => ({ type: 'resend', apiKey: HTTP_API_KEY, baseUrl: `http://127.0.0.1:${env.EMAIL_HTTP_PORT}` });

const completeConfig = (provider: Record<string, unknown>) => ({
  from: 'shop@example.com',
  subject: 'Hello {{name}} & co',
  html: '<p>Hello {{name}}, your code is {{code}}.</p>',
  text: 'Hello {{name}}, your code is {{code}}.',
  variables: { name: { value: 'friend' }, code: { value: 'default-code', type: 'masked' } },
  provider,
  security: { type: 'apiKey' },
});

async function putConfig(tenant: string, code: string, body: unknown): Promise<Response> {
  return call('PUT', `/api/v1/admin/email/${tenant}/${code}`, { token: ADMIN_TOKEN, body });
}

/** A tenant with a complete configuration; answers the API key issued with it. */
async function createConfig(provider: Record<string, unknown> = smtpProvider(), overrides: Record<string, unknown> = {}) {
  const tenant = uniqueCode('mail');
  await expectOk(call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: {} }));
  const res = await expectOk(putConfig(tenant, 'welcome', { ...completeConfig(provider), ...overrides }));
  const { apiKey } = await json(res);
  return { tenant, code: 'welcome', apiKey: apiKey as string };
}

function send(tenant: string, code: string, apiKey: string | undefined, body: unknown, header = 'X-Service-Token') {
  return call('POST', `/api/v1/email/send/${tenant}/${code}`, { body, headers: apiKey === undefined ? {} : { [header]: apiKey } });
}

interface Delivery {
  id: string;
  target: string;
  variables: Record<string, string>;
  status: string;
  attempts: number;
  error: string | null;
  sentAt: string | null;
}

async function deliveryTo(tenant: string, code: string, target: string): Promise<Delivery | undefined> {
  const res = await expectOk(call('GET', `/api/v1/admin/email/${tenant}/${code}/deliveries`, { token: ADMIN_TOKEN }));
  return (await json<{ deliveries: Delivery[] }>(res)).deliveries.find((d) => d.target === target);
}

const settled = (d: Delivery | undefined) => d?.status === 'sent' || d?.status === 'failed';
const recipient = (label: string) => `${uniqueCode(label).toLowerCase()}@example.org`;

describe('email configuration admin API', () => {
  it('stores a configuration, answers the API key once and never a credential', async () => {
    const tenant = uniqueCode('mail');
    await expectOk(call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: {} }));
    const res = await putConfig(tenant, 'welcome', completeConfig(smtpProvider()));
    expect(res.status).toBe(200);
    const created = await json(res);
    expect(created.apiKey).toMatch(/^sek_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      ready: true,
      missing: [],
      security: { type: 'apiKey', header: 'X-Service-Token' },
      provider: { type: 'smtp', user: SMTP_USER, password: '***' },
      variables: { name: { value: 'friend', type: 'standard' }, code: { value: '[masked]', type: 'masked' } },
    });

    const read = await json(await expectOk(call('GET', `/api/v1/admin/email/${tenant}/welcome`, { token: ADMIN_TOKEN })));
    expect(read.apiKey).toBeUndefined();
    const updated = await json(
      await expectOk(putConfig(tenant, 'welcome', { provider: httpProvider(), security: { type: 'apiKey', header: 'X-Mail-Key' } })),
    );
    expect(updated.apiKey).toBeUndefined();
    expect(updated).toMatchObject({
      provider: { type: 'resend', apiKey: '***' },
      security: { header: 'X-Mail-Key' },
      subject: 'Hello {{name}} & co',
    });
    for (const body of [JSON.stringify(created), JSON.stringify(read), JSON.stringify(updated)]) {
      expect(body).not.toContain(SMTP_PASSWORD);
      expect(body).not.toContain(HTTP_API_KEY);
      expect(body).not.toContain('default-code');
    }
  });

  it('answers 401 without the root token, 404 for an unknown tenant or configuration', async () => {
    expect((await call('PUT', `/api/v1/admin/email/x/y`, { token: 'wrong', body: {} })).status).toBe(401);
    expect((await putConfig(uniqueCode('none'), 'welcome', {})).status).toBe(404);
    const { tenant } = await createConfig();
    expect((await call('GET', `/api/v1/admin/email/${tenant}/other/deliveries`, { token: ADMIN_TOKEN })).status).toBe(404);
  });

  it('answers 400 naming the offending field of an invalid configuration', async () => {
    const { tenant } = await createConfig();
    const cases: [unknown, string][] = [
      [{ provider: { ...smtpProvider(), port: 70000 } }, 'provider.port'],
      [{ provider: { type: 'carrier-pigeon' } }, 'provider.type'],
      [{ html: '<p>{{#open}} never closed</p>' }, 'html'],
      [{ from: 'not an address' }, 'from'],
      [{ security: { type: 'apiKey', header: 'bad header' } }, 'security.header'],
    ];
    for (const [body, path] of cases) {
      const res = await putConfig(tenant, 'welcome', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });
});

describe('send email: statuses', () => {
  it('answers strangers the same for unknown, keyless and existing configurations', async () => {
    const { tenant, code, apiKey } = await createConfig();
    await expectOk(putConfig(tenant, 'keyless', { subject: 'Hi' }));
    const answers = [];
    for (const [configTenant, configCode, key] of [
      [tenant, 'unknown', apiKey],
      [uniqueCode('nobody'), code, apiKey],
      [tenant, 'keyless', 'anything'],
      [tenant, code, 'sek_wrong'],
      [tenant, code, undefined],
    ] as const) {
      const res = await send(configTenant, configCode, key, { target: 'a@example.org' });
      answers.push({ status: res.status, body: await json(res) });
    }
    for (const answer of answers) {
      expect(answer).toEqual({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'Missing or invalid API key' } });
    }
  });

  it('answers 401 for a missing or wrong key, and accepts the key only in the configured header', async () => {
    const { tenant, code, apiKey } = await createConfig(smtpProvider(), { security: { type: 'apiKey', header: 'X-Mail-Key' } });
    for (const key of [undefined, 'sek_wrong', `${apiKey}x`]) {
      const res = await send(tenant, code, key, { target: 'a@example.org' }, 'X-Mail-Key');
      expect(res.status).toBe(401);
      expect(await json(res)).toMatchObject({ statusCode: 401, message: 'Missing or invalid API key' });
    }
    expect((await send(tenant, code, apiKey, { target: 'a@example.org' }, 'X-Service-Token')).status).toBe(401);
    expect((await send(tenant, code, apiKey, { target: recipient('hdr') }, 'X-Mail-Key')).status).toBe(200);
  });

  it('answers 409 naming what a configuration lacks', async () => {
    const tenant = uniqueCode('mail');
    await expectOk(call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: {} }));
    const bare = await json(await expectOk(putConfig(tenant, 'draft', { subject: 'Hi' })));
    expect(bare).toMatchObject({ ready: false, missing: ['from', 'template (html or text)', 'provider', 'security configuration'] });

    const { apiKey } = await json(await expectOk(putConfig(tenant, 'draft', { security: { type: 'apiKey' }, text: 'Hello' })));
    const res = await send(tenant, 'draft', apiKey, { target: 'a@example.org' });
    expect(res.status).toBe(409);
    expect((await json(res)).message).toBe('Email configuration is not ready to send; missing: from, provider');
  });

  it('answers 400 with details for an invalid target, malformed or oversized variables, or malformed JSON', async () => {
    const { tenant, code, apiKey } = await createConfig();
    const cases: [unknown, string][] = [
      [{ target: 'not-an-address' }, 'target'],
      [{}, 'target'],
      [{ target: 'a@example.org', variables: { name: 'plain string' } }, 'variables.name'],
      [{ target: 'a@example.org', variables: { name: { value: 42 } } }, 'variables.name.value'],
      [{ target: 'a@example.org', variables: { name: { value: 'x', type: 'secret' } } }, 'variables.name.type'],
      [{ target: 'a@example.org', variables: { 'bad name': { value: 'x' } } }, 'variables.bad name'],
    ];
    for (const [body, path] of cases) {
      const res = await send(tenant, code, apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const big = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`v${i}`, { value: 'x'.repeat(10_000) }]));
    let res = await send(tenant, code, apiKey, { target: 'a@example.org', variables: big });
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([{ path: 'variables', message: 'variables exceed 100000 bytes in total' }]);
    res = await call('POST', `/api/v1/email/send/${tenant}/${code}`, {
      rawBody: '{"target": ',
      headers: { 'X-Service-Token': apiKey, 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });

  it('rotating the key answers a new one; the old key stops working', async () => {
    const { tenant, code, apiKey } = await createConfig();
    const rotated = await json(await expectOk(putConfig(tenant, code, { rotateKey: true })));
    expect(rotated.apiKey).toMatch(/^sek_/);
    expect(rotated.apiKey).not.toBe(apiKey);
    expect((await send(tenant, code, apiKey, { target: 'a@example.org' })).status).toBe(401);
    expect((await send(tenant, code, rotated.apiKey, { target: recipient('rot') })).status).toBe(200);

    const noSecurity = uniqueCode('mail');
    await expectOk(call('PUT', `/api/v1/admin/tenants/${noSecurity}`, { token: ADMIN_TOKEN, body: {} }));
    const res = await putConfig(noSecurity, 'x', { rotateKey: true });
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([{ path: 'rotateKey', message: 'no security configuration to rotate' }]);
  });
});

describe('send email: delivery', () => {
  it('delivers over SMTP with variables filled in, escaped in html only, and masks masked variables in the log', async () => {
    const { tenant, code, apiKey } = await createConfig();
    const target = recipient('smtp');
    const res = await send(tenant, code, apiKey, {
      target,
      variables: { name: { value: 'Tom <b>&</b> "Jerry"' }, code: { value: 'S3CR3T-42', type: 'masked' } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('OK');

    const [mail] = await waitFor(
      () => receivedBy(target),
      (m) => m.length > 0,
    );
    expect(mail).toMatchObject({
      channel: 'smtp',
      from: 'shop@example.com',
      to: [target],
      credential: SMTP_USER,
      subject: 'Hello Tom <b>&</b> "Jerry" & co',
      text: 'Hello Tom <b>&</b> "Jerry", your code is S3CR3T-42.',
      html: '<p>Hello Tom &lt;b&gt;&amp;&lt;&#x2F;b&gt; &quot;Jerry&quot;, your code is S3CR3T-42.</p>',
    });

    const delivery = await waitFor(
      () => deliveryTo(tenant, code, target),
      (d) => d?.status === 'sent',
    );
    expect(delivery).toMatchObject({ attempts: 1, error: null, variables: { name: 'Tom <b>&</b> "Jerry"', code: '[masked]' } });
    expect(delivery!.sentAt).toBeTruthy();
    const log = await (await call('GET', `/api/v1/admin/email/${tenant}/${code}/deliveries`, { token: ADMIN_TOKEN })).text();
    expect(log).not.toContain('S3CR3T-42');
  });

  it('uses the configuration defaults when no variables are sent, and masks a masked default', async () => {
    const { tenant, code, apiKey } = await createConfig();
    const target = recipient('defaults');
    expect((await send(tenant, code, apiKey, { target, variables: null })).status).toBe(200);
    const [mail] = await waitFor(
      () => receivedBy(target),
      (m) => m.length > 0,
    );
    expect(mail.text).toBe('Hello friend, your code is default-code.');
    const delivery = await waitFor(
      () => deliveryTo(tenant, code, target),
      (d) => d?.status === 'sent',
    );
    expect(delivery!.variables).toEqual({ name: 'friend', code: '[masked]' });
  });

  it('answers 200 before delivery: the HTTP API stand-in holds the delivery until released', async () => {
    const { tenant, code, apiKey } = await createConfig(httpProvider());
    const target = recipient('held');
    await control('/control/hold', { recipient: target });

    const res = await send(tenant, code, apiKey, { target, variables: { name: { value: 'Ann & Bob' } } });
    expect(res.status).toBe(200);
    // The queue's consumer may have taken it already (under load it can start before this read), never delivered it.
    expect(['queued', 'sending']).toContain((await deliveryTo(tenant, code, target))?.status);

    await waitFor(
      async () => (await (await fetch(standInUrl(`/control/held?to=${target}`))).json<{ waiting: number }>()).waiting,
      (n) => n === 1,
    );
    expect((await deliveryTo(tenant, code, target))?.status).toBe('sending');
    expect(await receivedBy(target)).toEqual([]);

    await control('/control/release', { recipient: target });
    const delivery = await waitFor(() => deliveryTo(tenant, code, target), settled);
    expect(delivery).toMatchObject({ status: 'sent', attempts: 1 });
    const [mail] = await receivedBy(target);
    expect(mail).toMatchObject({
      channel: 'http',
      credential: `Bearer ${HTTP_API_KEY}`,
      from: 'shop@example.com',
      to: [target],
      subject: 'Hello Ann & Bob & co',
      html: '<p>Hello Ann &amp; Bob, your code is default-code.</p>',
      text: 'Hello Ann & Bob, your code is default-code.',
    });
  });

  it('retries a transient SMTP failure (4xx reply) and then delivers', async () => {
    const { tenant, code, apiKey } = await createConfig();
    const target = recipient('retry');
    await control('/control/fail', { channel: 'smtp', recipient: target, count: 2, code: 451 });
    expect((await send(tenant, code, apiKey, { target })).status).toBe(200);
    const delivery = await waitFor(() => deliveryTo(tenant, code, target), settled);
    expect(delivery).toMatchObject({ status: 'sent', attempts: 3 });
    expect(delivery!.error).toContain('451');
    expect(await receivedBy(target)).toHaveLength(1);
  });

  it('retries a transient HTTP API failure (5xx answer) and then delivers', async () => {
    const { tenant, code, apiKey } = await createConfig(httpProvider());
    const target = recipient('retry-http');
    await control('/control/fail', { channel: 'http', recipient: target, count: 1, code: 503 });
    expect((await send(tenant, code, apiKey, { target })).status).toBe(200);
    const delivery = await waitFor(() => deliveryTo(tenant, code, target), settled);
    expect(delivery).toMatchObject({ status: 'sent', attempts: 2 });
    expect(await receivedBy(target)).toHaveLength(1);
  });

  it('does not retry a permanent SMTP failure (5xx reply)', async () => {
    const { tenant, code, apiKey } = await createConfig();
    const target = recipient('perm');
    await control('/control/fail', { channel: 'smtp', recipient: target, count: 1, code: 550 });
    expect((await send(tenant, code, apiKey, { target })).status).toBe(200);
    const delivery = await waitFor(() => deliveryTo(tenant, code, target), settled);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1 });
    expect(delivery!.error).toMatch(/^SMTP: .*550/);
    expect(await receivedBy(target)).toEqual([]);
  });

  it('does not retry a permanent HTTP API failure (4xx answer), and fails on wrong SMTP credentials', async () => {
    const { tenant, code, apiKey } = await createConfig(httpProvider());
    const target = recipient('perm-http');
    await control('/control/fail', { channel: 'http', recipient: target, count: 1, code: 422 });
    expect((await send(tenant, code, apiKey, { target })).status).toBe(200);
    let delivery = await waitFor(() => deliveryTo(tenant, code, target), settled);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, error: expect.stringContaining('HTTP API answered 422') });

    const badAuth = await createConfig({ ...smtpProvider(), password: 'not-the-password' });
    const other = recipient('bad-auth');
    expect((await send(badAuth.tenant, badAuth.code, badAuth.apiKey, { target: other })).status).toBe(200);
    delivery = await waitFor(() => deliveryTo(badAuth.tenant, badAuth.code, other), settled);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, error: expect.stringContaining('535') });
    expect(delivery!.error).not.toContain('not-the-password');
  });

  it('after the last retry the job goes to the dead-letter queue and the log says failed', async () => {
    const { tenant, code, apiKey } = await createConfig(httpProvider());
    const target = recipient('dlq');
    await control('/control/fail', { channel: 'http', recipient: target, count: 100, code: 503 });
    expect((await send(tenant, code, apiKey, { target })).status).toBe(200);
    const delivery = await waitFor(() => deliveryTo(tenant, code, target), settled);
    // max_retries = 5 in wrangler.toml: 6 attempts.
    expect(delivery).toMatchObject({ status: 'failed', attempts: 6 });
    expect(delivery!.error).toMatch(/^gave up after 6 attempts: HTTP API answered 503/);
    expect(await receivedBy(target)).toEqual([]);
  });
});

describe('email queue consumer', () => {
  it('computes an exponential backoff from EMAIL_RETRY_BASE_DELAY_SECONDS, capped at 15 minutes', () => {
    const base10 = { EMAIL_RETRY_BASE_DELAY_SECONDS: '10' } as Env;
    expect([1, 2, 3, 4, 5, 20].map((attempt) => retryDelaySeconds(base10, attempt))).toEqual([10, 20, 40, 80, 160, 900]);
    expect(retryDelaySeconds({} as Env, 1)).toBe(10);
    expect(retryDelaySeconds({ EMAIL_RETRY_BASE_DELAY_SECONDS: '0' } as Env, 3)).toBe(0);
  });

  it('asks the queue for a delayed retry, and acks a redelivered job that was already sent without sending again', async () => {
    const { tenant, code } = await createConfig(httpProvider());
    const target = recipient('direct');
    await control('/control/fail', { channel: 'http', recipient: target, count: 1, code: 503 });
    const config = await env.DB.prepare('SELECT id FROM email_configs WHERE tenant_code = ?').bind(tenant).first<{ id: number }>();
    const job: EmailJob = { deliveryId: crypto.randomUUID(), configId: config!.id, target, variables: { name: 'Direct' } };
    await env.DB.prepare(`INSERT INTO email_deliveries (id, config_id, target, variables, status) VALUES (?, ?, ?, '{}', 'queued')`)
      .bind(job.deliveryId, job.configId, target)
      .run();

    const consume = async (id: string, attempts: number) => {
      const batch = createMessageBatch<EmailJob>('email', [{ id, timestamp: Date.now(), attempts, body: job }]);
      // getQueueResult drops the retry delay; the spy calls through and keeps it.
      const retry = vi.spyOn(batch.messages[0], 'retry');
      const ctx = createExecutionContext();
      await worker.queue(batch, { ...env, EMAIL_RETRY_BASE_DELAY_SECONDS: '10' }, ctx);
      return { ...(await getQueueResult(batch, ctx)), retry };
    };

    let result = await consume('first', 3);
    expect(result.retryMessages).toEqual([{ msgId: 'first' }]);
    expect(result.retry).toHaveBeenCalledWith({ delaySeconds: 40 });
    expect(await deliveryTo(tenant, code, target)).toMatchObject({ status: 'queued', attempts: 3, error: expect.stringContaining('503') });

    result = await consume('second', 4);
    expect(result.explicitAcks).toEqual(['second']);
    expect(await deliveryTo(tenant, code, target)).toMatchObject({ status: 'sent', attempts: 4 });

    result = await consume('redelivered', 5);
    expect(result.explicitAcks).toEqual(['redelivered']);
    expect(result.retryMessages).toEqual([]);
    expect(await receivedBy(target)).toHaveLength(1);
    expect((await deliveryTo(tenant, code, target))?.attempts).toBe(4);
  });
});
