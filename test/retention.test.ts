import { env } from 'cloudflare:workers';
import { createScheduledController } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../src/index';
import { runMaintenance, UNDELIVERED_ERROR } from '../src/retention';
import { ADMIN_TOKEN, call, expectOk, uniqueCode } from './helpers';
import { feedingApp } from './feeding/helpers';

/** Retention: the Cron Trigger deletes what is past its age, in bounded batches, and nothing younger. */

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

async function count(query: string, ...params: unknown[]): Promise<number> {
  const row = await env.DB.prepare(query)
    .bind(...params)
    .first<{ n: number }>();
  return row!.n;
}

describe('retention', () => {
  it('the scheduled handler prunes old terminal feeding entries, old deliveries and idle chat sessions, and fails deliveries no queue can hold', async () => {
    const app = await feedingApp();
    const appId = (await env.DB.prepare('SELECT id FROM search_apps WHERE tenant_code = ?').bind(app.tenant).first<number>('id'))!;
    const insertEntry = env.DB.prepare(
      `INSERT INTO feeding_operations (app_id, document_id, operation, state, type, created_at) VALUES (?, ?, 'update', ?, 'svc', ?)`,
    );
    await env.DB.batch([
      insertEntry.bind(appId, 'old-finished', 'FINISHED', daysAgo(8)),
      insertEntry.bind(appId, 'old-error', 'ERROR', daysAgo(30)),
      insertEntry.bind(appId, 'old-but-open', 'CREATED', daysAgo(8)),
      insertEntry.bind(appId, 'recent', 'FINISHED', daysAgo(6)),
    ]);

    const tenant = uniqueCode('keep');
    await expectOk(call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: {} }));
    await expectOk(call('PUT', `/api/v1/admin/email/${tenant}/welcome`, { token: ADMIN_TOKEN, body: { subject: 'Hi' } }));
    const configId = (await env.DB.prepare('SELECT id FROM email_configs WHERE tenant_code = ?').bind(tenant).first<number>('id'))!;
    const insertDelivery = env.DB.prepare(
      `INSERT INTO email_deliveries (id, config_id, target, variables, status, created_at) VALUES (?, ?, 'a@example.org', '{}', ?, ?)`,
    );
    await env.DB.batch([
      insertDelivery.bind(`${tenant}-old-sent`, configId, 'sent', daysAgo(31)),
      insertDelivery.bind(`${tenant}-old-queued`, configId, 'queued', daysAgo(31)),
      insertDelivery.bind(`${tenant}-recent`, configId, 'failed', daysAgo(29)),
      // Past the 14 days a queue can hold a job: never sent, so failed (and kept until its retention age).
      insertDelivery.bind(`${tenant}-stale-queued`, configId, 'queued', daysAgo(15)),
      insertDelivery.bind(`${tenant}-stale-sending`, configId, 'sending', daysAgo(20)),
      // A queue may still hold its job: left as it is.
      insertDelivery.bind(`${tenant}-waiting`, configId, 'queued', daysAgo(13)),
    ]);

    const agent = await env.DB.prepare(
      `INSERT INTO agents (tenant_code, code, llm_models, default_model, welcome_message, system_prompt, enabled)
       VALUES (?, 'helper', '[]', 'openai:x', '', '', 1) RETURNING id`,
    )
      .bind(tenant)
      .first<number>('id');
    const insertSession = env.DB.prepare(`INSERT INTO chat_sessions (agent_id, session_id, updated_at) VALUES (?, ?, ?) RETURNING id`);
    const idle = (await insertSession.bind(agent, 'idle', daysAgo(31)).first<number>('id'))!;
    await insertSession.bind(agent, 'active', daysAgo(1)).run();
    await env.DB.prepare(`INSERT INTO chat_turns (session_row_id, role, text) VALUES (?, 'user', 'hello')`).bind(idle).run();

    await worker.scheduled(createScheduledController({ cron: '* * * * *' }), env);

    const entries = await env.DB.prepare('SELECT document_id FROM feeding_operations WHERE app_id = ? ORDER BY id').bind(appId).all();
    expect(entries.results.map((r) => r.document_id)).toEqual(['old-but-open', 'recent']);
    const deliveries = await env.DB.prepare('SELECT id, status, error FROM email_deliveries WHERE config_id = ? ORDER BY id')
      .bind(configId)
      .all();
    expect(deliveries.results).toEqual([
      { id: `${tenant}-recent`, status: 'failed', error: null },
      { id: `${tenant}-stale-queued`, status: 'failed', error: UNDELIVERED_ERROR },
      { id: `${tenant}-stale-sending`, status: 'failed', error: UNDELIVERED_ERROR },
      { id: `${tenant}-waiting`, status: 'queued', error: null },
    ]);
    const sessions = await env.DB.prepare('SELECT session_id FROM chat_sessions WHERE agent_id = ?').bind(agent).all();
    expect(sessions.results.map((r) => r.session_id)).toEqual(['active']);
    expect(await count('SELECT count(*) AS n FROM chat_turns WHERE session_row_id = ?', idle)).toBe(0);
  });

  it('ages are configurable, and one run deletes at most its bounded batches', async () => {
    const app = await feedingApp();
    const appId = (await env.DB.prepare('SELECT id FROM search_apps WHERE tenant_code = ?').bind(app.tenant).first<number>('id'))!;
    // 12,000 terminal entries two days old: past a one-day retention, more than one run's 10 batches of 1,000.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
       INSERT INTO feeding_operations (app_id, document_id, operation, state, type, created_at)
       SELECT ?, 'doc-' || i, 'update', 'FINISHED', 'svc', ? FROM n`,
    )
      .bind(appId, daysAgo(2))
      .run();
    const oneDay = { ...env, FEEDING_RETENTION_DAYS: '1' };
    expect((await runMaintenance(oneDay)).feedingEntries).toBe(10_000);
    // (Older rows of other tests count against the same batches.)
    expect(await count('SELECT count(*) AS n FROM feeding_operations WHERE app_id = ?', appId)).toBeGreaterThanOrEqual(2_000);
    expect((await runMaintenance(oneDay)).feedingEntries).toBeLessThan(10_000);
    expect(await count('SELECT count(*) AS n FROM feeding_operations WHERE app_id = ?', appId)).toBe(0);
  });
});
