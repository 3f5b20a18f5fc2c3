// The service's HTTP API as the benchmark drives it: admin setup, feeding, search.
import { request } from '../seed.mjs';

export const TENANT = 'bench';
export const APP = 'debian';

/** Tenant, search app, an admin and a feeding token, and the schema, through the admin API. */
export async function createSearchApp(baseUrl, rootToken, schema) {
  await request(baseUrl, 'PUT', `/api/v1/admin/tenants/${TENANT}`, rootToken, { name: 'Benchmark' });
  await request(baseUrl, 'PUT', `/api/v1/admin/searchapps/${TENANT}/${APP}`, rootToken, { name: 'Debian packages', rateLimit: 'off' }); // a load test is one client by design
  const admin = await request(baseUrl, 'POST', `/api/v1/admin/tokens/${TENANT}`, rootToken, { kind: 'admin', permission: 'WRITE' });
  const feeding = await request(baseUrl, 'POST', `/api/v1/admin/tokens/${TENANT}`, rootToken, { kind: 'feeding', permission: 'WRITE' });
  await request(baseUrl, 'PUT', `/api/v1/searchapp/schema/${TENANT}/${APP}`, admin.token, schema);
  return { adminToken: admin.token, feedingToken: feeding.token };
}

export function feedingCall(baseUrl, token, method, path, body) {
  return request(baseUrl, method, path.replace('{app}', `${TENANT}/${APP}`), token, body);
}

/** GET query string of a SearchQuery (f.{id}=value, ranges as min..max). */
export function searchQueryString({ q, page, rows, sort, filters }) {
  const params = new URLSearchParams();
  if (q !== undefined) params.set('q', q);
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

export const searchPath = (query) => `/api/v1/search/${TENANT}/${APP}?${searchQueryString(query)}`;
export const suggestPath = (query) => `/api/v1/search/suggest/${TENANT}/${APP}?${searchQueryString(query)}`;
export const searchPostPath = `/api/v1/search/${TENANT}/${APP}`;

/** One search; answers the parsed body and the milliseconds it took, or throws with the status and body. */
export async function timedSearch(baseUrl, query) {
  const start = performance.now();
  const res = await fetch(baseUrl + searchPath(query));
  const text = await res.text();
  const ms = performance.now() - start;
  if (!res.ok) throw new Error(`GET ${searchPath(query)} answered ${res.status}: ${text.slice(0, 500)}`);
  return { body: JSON.parse(text), ms };
}
