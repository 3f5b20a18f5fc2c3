import { describe, expect, it } from 'vitest';
import { createApp } from '../src/http/app';
import { fullFeedStatus, queueListResponse, searchResponse, suggestResponse } from '../src/contract';
import { call, json } from './helpers';
import { bulk, debianEnvelopes, feedingApp } from './feeding/helpers';

describe('OpenAPI document', () => {
  it('lists every mounted route with its token and answers', async () => {
    const doc = await json(await call('GET', '/openapi.json'));
    expect(doc.openapi).toBe('3.1.0');
    const mounted = createApp()
      .routes.filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations as object).map((m) => `${m} ${path}`),
    );
    expect(mounted.filter((route) => !documented.includes(route))).toEqual([]);
    expect(doc.components.securitySchemes.feedingToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Service-Token' });
  });

  it('describes the GET search parameters named after a facet as the patterns they are', async () => {
    const doc = await json(await call('GET', '/openapi.json'));
    const parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }> =
      doc.paths['/api/v1/search/{tenant}/{code}'].get.parameters;
    const byName = new Map(parameters.map((p) => [p.name, p]));
    expect(byName.has('facetLimits')).toBe(false);
    expect(byName.has('facetPaths')).toBe(false);
    expect(byName.get('facetLimit.{facetId}')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 0, maximum: 1000 } });
    expect(byName.get('facetPath.{facetId}')).toMatchObject({ in: 'query', schema: { type: 'string' } });
    expect(byName.get('f.{facetId}')).toMatchObject({ in: 'query', schema: { type: 'string' } });
    expect(byName.get('attributesToRetrieve')).toMatchObject({ in: 'query', schema: { type: 'string' } });
  });

  it('answers what it declares: real answers parse with the schemas the document is generated from', async () => {
    const app = await feedingApp();
    expect((await bulk(app, debianEnvelopes.slice(0, 3))).status).toBe(200);
    const get = async (path: string, token?: string) => json(await call('GET', path, { token }));
    expect(queueListResponse.safeParse(await get(`/api/v1/data/queue/${app.tenant}/${app.code}?limit=2`, app.feed)).success).toBe(true);
    expect(fullFeedStatus.safeParse(await get(`/api/v1/data/fullfeed/status/${app.tenant}/${app.code}`, app.feed)).success).toBe(true);
    expect(searchResponse.safeParse(await get(`/api/v1/search/${app.tenant}/${app.code}?q=`)).success).toBe(true);
    expect(suggestResponse.safeParse(await get(`/api/v1/search/suggest/${app.tenant}/${app.code}?q=a`)).success).toBe(true);
  });
});
