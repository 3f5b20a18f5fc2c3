import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createClient, EdgeSearchError } from '../../packages/client/src/index.ts';
import { ADMIN_TOKEN, BASE } from '../helpers';
import { debianEnvelopes, envelope, feedingApp, type FeedingApp } from '../feeding/helpers';

/** The typed client against the worker's own fetch handler: real D1, Durable Objects and Queues. */
function clientOf(app: FeedingApp) {
  return createClient({
    url: BASE,
    tenant: app.tenant,
    app: app.code,
    token: app.feed,
    adminToken: app.admin,
    rootToken: ADMIN_TOKEN,
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
  });
}

describe('typed client', () => {
  it('feeds in chunks, waits for the queue, searches and suggests', async () => {
    const app = await feedingApp();
    const client = clientOf(app);
    const entries = [...debianEnvelopes.slice(0, 250), { header: { id: 'bad', action: 'update' }, payload: { nope: 1 } }];
    const progress: number[] = [];
    const summary = await client.feed(entries, { chunkSize: 60, concurrency: 3, onProgress: (p) => progress.push(p.accepted) });
    expect(summary).toMatchObject({ sent: 251, accepted: 250, rejected: 1 });
    expect(summary.errors).toEqual([{ position: 250, documentId: 'bad', error: 'payload: Unrecognized key: "nope"' }]);
    expect(progress).toHaveLength(5);
    const counts = await client.waitForQueue(summary.firstId! - 1, { interval: 50 });
    expect(counts.counts.FINISHED).toBe(250);

    const name = String(debianEnvelopes[0].payload.name);
    const { result } = await client.search({ q: name, rows: 3 });
    expect(result.documents.map((d) => d.id)).toContain(debianEnvelopes[0].header.id);
    const { suggestions } = await client.suggest(name.slice(0, 3));
    expect(suggestions.length).toBeGreaterThan(0);
  });

  it('runs a full-feed cycle and reports a chunk where nothing is valid as rejected entries', async () => {
    const app = await feedingApp();
    const client = clientOf(app);
    const { result } = await client.fullFeed(() =>
      client.feed(
        [envelope('a', { name: 'a' }), envelope('b', { name: 'b' }), { header: { id: 'c', action: 'update' }, payload: { name: 3 } }],
        {
          chunkSize: 2,
        },
      ),
    );
    expect(result).toMatchObject({
      accepted: 2,
      rejected: 1,
      errors: [{ position: 2, documentId: null, error: expect.stringContaining('c: payload.name') }],
    });
    const status = await client.waitForFullFeed({ interval: 50 });
    expect(status).toMatchObject({ state: 'NONE', liveDocuments: 2 });
  });

  it('throws EdgeSearchError with the error body', async () => {
    const app = await feedingApp();
    const client = clientOf(app);
    const error = await client.search({ rows: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EdgeSearchError);
    expect((error as EdgeSearchError).status).toBe(400);
    expect((error as EdgeSearchError).details[0].path).toBe('rows');
  });
});
