import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import debianSchema from '../fixtures/debian-packages.schema.json';
import sample from '../fixtures/debian-sample.ndjson?raw';
import { SearchAppClient } from '../../src/search/search-app-client';
import { TERMINAL_FEEDING_STATES } from '../../src/db/schema';
import { ADMIN_TOKEN, call, createTenantWithApp, createToken, expectOk, json, waitFor } from '../helpers';

export { debianSchema };

/** The Debian fixture as feeding envelopes. */
export const debianEnvelopes: Array<{ header: { id: string; action: 'update' }; payload: Record<string, unknown> }> = sample
  .split('\n')
  .filter(Boolean)
  .map((line: string) => JSON.parse(line));

export interface FeedingApp {
  tenant: string;
  code: string;
  feed: string;
  admin: string;
  /** The search app's Durable Object. */
  searchApp: SearchAppClient;
}

/** A tenant with a search app on the Debian schema (or another), and its tokens. */
export async function feedingApp(schema: unknown = debianSchema): Promise<FeedingApp> {
  const { tenant, code } = await createTenantWithApp('feed');
  const admin = (await createToken(tenant, 'admin')).token;
  const feed = (await createToken(tenant, 'feeding')).token;
  await expectOk(call('PUT', `/api/v1/searchapp/schema/${tenant}/${code}`, { token: admin, body: schema }));
  return { tenant, code, feed, admin, searchApp: new SearchAppClient(env, tenant, code) };
}

/** Where the edge cache files the app's answers: `<tenant>/<code>/<D1 id of the app>`. */
export async function edgeCacheApp(app: FeedingApp): Promise<string> {
  const res = await expectOk(call('GET', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN }));
  return `${app.tenant}/${app.code}/${(await json<{ id: number }>(res)).id}`;
}

export function envelope(id: string, payload: Record<string, unknown>) {
  return { header: { id, action: 'update' as const }, payload };
}

/** Waits for a feeding queue entry to reach a terminal state and answers it. */
export async function settled(app: FeedingApp, id: number) {
  return waitFor(
    async () => json(await call('GET', `/api/v1/data/queue/${app.tenant}/${app.code}/${id}`, { token: app.feed })),
    (entry) => TERMINAL_FEEDING_STATES.includes(entry.state),
  );
}

/** Waits until every given entry is terminal (or, with `staged`, PREPARED too) and answers their states by id. */
export async function allSettled(app: FeedingApp, ids: number[], { staged = false } = {}) {
  const done: readonly string[] = staged ? [...TERMINAL_FEEDING_STATES, 'PREPARED'] : TERMINAL_FEEDING_STATES;
  return waitFor(
    async () => {
      const rows = await env.DB.prepare(`SELECT id, state FROM feeding_operations WHERE id IN (SELECT value FROM json_each(?))`)
        .bind(JSON.stringify(ids))
        .all<{ id: number; state: string }>();
      return new Map(rows.results.map((r) => [r.id, r.state]));
    },
    (states) => ids.every((id) => done.includes(states.get(id) ?? '')),
    60_000,
  );
}

export async function bulk(app: FeedingApp, entries: unknown[], type = 'svc') {
  return call('POST', `/api/v1/data/bulk/${type}/${app.tenant}/${app.code}`, { token: app.feed, body: entries });
}

export async function fullFeed(app: FeedingApp, step: 'start' | 'end' | 'cancel') {
  return call('POST', `/api/v1/data/fullfeed/${step}/${app.tenant}/${app.code}`, {
    token: app.feed,
    body: step === 'cancel' ? undefined : {},
  });
}

export async function getDocument(app: FeedingApp, id: string) {
  return call('GET', `/api/v1/data/${app.tenant}/${app.code}/${id}`, { token: app.feed });
}

/** Ids of every document the index finds for a query, in rank order. */
export async function searchIds(app: FeedingApp, q = '', rows = 100): Promise<string[]> {
  return (await app.searchApp.search({ q, page: 1, rows })).documents.map((d) => d.id);
}

/** Makes the app's recovery check due and runs its Durable Object's (shard 0's) alarm, as the runtime would a moment later. */
export async function runRecoveryCheck(app: FeedingApp): Promise<void> {
  await runInDurableObject(app.searchApp.stub, async (_instance, state) => {
    state.storage.sql.exec(`UPDATE meta SET value = '0' WHERE key = 'recoveryAt'`);
  });
  expect(await runDurableObjectAlarm(app.searchApp.stub)).toBe(true);
}
