import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { seedShopApp } from '../fixtures/shop-app';
import { BASE, call, json } from '../helpers';

/** The worker with static assets that hold no file, as when `public/` was never built. */
async function withoutAssets(path: string): Promise<Response> {
  const ASSETS = { fetch: async () => new Response('Not Found', { status: 404 }) } as unknown as Fetcher;
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(BASE + path), { ...env, ASSETS }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe('the search page and API reference routes', () => {
  let page = '';
  beforeAll(async () => {
    const { tenant, code } = await seedShopApp('page');
    page = `/ui/${tenant}/${code}`;
  });

  it('serves the search page with the app configuration inlined, and 404 in the error body for an unknown app', async () => {
    const response = await call('GET', page);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/<script type="application\/json" id="search-page-config">\{.*"app":"shop"/);
    expect(html).toContain('"hierarchicalMenus":["tags"]');
    const unknown = await call('GET', '/ui/no-such-tenant/shop');
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('answers 503 in the one error body, naming the build step, when the static assets were not built', async () => {
    for (const path of [page, '/docs']) {
      const response = await withoutAssets(path);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('Content-Type')).toContain('application/json');
      const body = await json(response);
      expect(body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
      expect(body.message).toContain('scripts/build-ui.mjs');
    }
  });
});
