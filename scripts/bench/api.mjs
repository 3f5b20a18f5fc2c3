// The service's HTTP API as the benchmark drives it: admin setup, feeding, search.
import { request } from '../seed.mjs';

export const TENANT = 'bench';
export const APP = 'debian';
/** The same catalogue with its descriptions embedded (issue 12): hybrid search. */
export const HYBRID_APP = 'debian-hybrid';

/** Tenant, search app `app` (with admin `settings` such as an embedder), an admin and a feeding token, and the schema, through the admin API. */
export async function createSearchApp(baseUrl, rootToken, schema, { app = APP, settings = {} } = {}) {
  await request(baseUrl, 'PUT', `/api/v1/admin/tenants/${TENANT}`, rootToken, { name: 'Benchmark' });
  // A load test is one client by design: no rate limit.
  await request(baseUrl, 'PUT', `/api/v1/admin/searchapps/${TENANT}/${app}`, rootToken, {
    name: 'Debian packages',
    rateLimit: 'off',
    ...settings,
  });
  const admin = await request(baseUrl, 'POST', `/api/v1/admin/tokens/${TENANT}`, rootToken, { kind: 'admin', permission: 'WRITE' });
  const feeding = await request(baseUrl, 'POST', `/api/v1/admin/tokens/${TENANT}`, rootToken, { kind: 'feeding', permission: 'WRITE' });
  await request(baseUrl, 'PUT', `/api/v1/searchapp/schema/${TENANT}/${app}`, admin.token, schema);
  return { adminToken: admin.token, feedingToken: feeding.token };
}

export function feedingCall(baseUrl, token, method, path, body, app = APP) {
  return request(baseUrl, method, path.replace('{app}', `${TENANT}/${app}`), token, body);
}

/** GET query string of a SearchQuery (f.{id}=value, ranges as min..max). */
export function searchQueryString({ q, page, rows, sort, filters, semanticRatio }) {
  const params = new URLSearchParams();
  if (q !== undefined) params.set('q', q);
  if (semanticRatio !== undefined) params.set('semanticRatio', String(semanticRatio));
  if (page !== undefined) params.set('page', String(page));
  if (rows !== undefined) params.set('rows', String(rows));
  if (sort) params.set('sort', sort);
  for (const [id, filter] of Object.entries(filters ?? {})) {
    if (filter.filterType === 'range' || filter.filterType === 'slider') {
      params.append(`f.${id}`, `${filter.minValue ?? ''}..${filter.maxValue ?? ''}`);
    } else {
      for (const value of filter.values ?? []) params.append(`f.${id}`, value);
    }
  }
  return params.toString();
}

export const searchPath = (query, app = APP) => `/api/v1/search/${TENANT}/${app}?${searchQueryString(query)}`;
export const suggestPath = (query) => `/api/v1/search/suggest/${TENANT}/${APP}?${searchQueryString(query)}`;
export const searchPostPath = `/api/v1/search/${TENANT}/${APP}`;

/** One search; answers the parsed body and the milliseconds it took, or throws with the status and body. */
export async function timedSearch(baseUrl, query, app = APP) {
  const start = performance.now();
  const res = await fetch(baseUrl + searchPath(query, app));
  const text = await res.text();
  const ms = performance.now() - start;
  if (!res.ok) throw new Error(`GET ${searchPath(query, app)} answered ${res.status}: ${text.slice(0, 500)}`);
  return { body: JSON.parse(text), ms };
}
