// Seeds the demo tenant `demo` with search app `catalog` through the admin API.
// Tokens are kept in .dev-seed.json and reused while they still work.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const SEED_FILE = '.dev-seed.json';

export async function waitUntilUp(baseUrl, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${baseUrl} did not answer within ${timeoutMs} ms`);
}

export async function request(baseUrl, method, path, token, body) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { 'X-Service-Token': token, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const DEMO_SCHEMA = JSON.parse(readFileSync(new URL('../test/fixtures/debian-packages.schema.json', import.meta.url), 'utf8'));
/** The demo catalogue: a slice of the Debian catalogue, one feeding envelope a line. */
export const DEMO_SAMPLE = new URL('../test/fixtures/debian-sample.ndjson', import.meta.url);

/** Puts the demo schema with a saved admin token; answers false when the token no longer works. */
async function putSchema(baseUrl, token, tenant, app) {
  const res = await fetch(`${baseUrl}/api/v1/searchapp/schema/${tenant}/${app}`, {
    method: 'PUT',
    headers: { 'X-Service-Token': token, 'Content-Type': 'application/json' },
    body: JSON.stringify(DEMO_SCHEMA),
  });
  if (res.status === 401) return false;
  if (!res.ok) throw new Error(`PUT schema answered ${res.status}: ${await res.text()}`);
  return true;
}

/** `seedFile` keeps the tokens between runs (another file for another persisted state). */
export async function seedDemo(baseUrl, adminToken, { tenant = 'demo', app = 'catalog', seedFile = SEED_FILE } = {}) {
  await waitUntilUp(baseUrl);
  await request(baseUrl, 'PUT', `/api/v1/admin/tenants/${tenant}`, adminToken, { name: 'Demo shop' });
  await request(baseUrl, 'PUT', `/api/v1/admin/searchapps/${tenant}/${app}`, adminToken, { name: 'Demo catalogue' });

  let saved = existsSync(seedFile) ? JSON.parse(readFileSync(seedFile, 'utf8')) : undefined;
  if (!saved || !(await putSchema(baseUrl, saved.adminToken, tenant, app))) {
    const admin = await request(baseUrl, 'POST', `/api/v1/admin/tokens/${tenant}`, adminToken, {
      kind: 'admin',
      permission: 'WRITE',
      name: 'demo admin',
    });
    const feeding = await request(baseUrl, 'POST', `/api/v1/admin/tokens/${tenant}`, adminToken, {
      kind: 'feeding',
      permission: 'WRITE',
      name: 'demo feeding',
    });
    saved = { adminToken: admin.token, feedingToken: feeding.token };
    writeFileSync(seedFile, JSON.stringify(saved, null, 2) + '\n');
    await putSchema(baseUrl, saved.adminToken, tenant, app);
  }
  const lines = [];
  const status = await request(baseUrl, 'GET', `/api/v1/data/fullfeed/status/${tenant}/${app}`, saved.feedingToken);
  if (status.liveDocuments === 0) {
    const entries = readFileSync(DEMO_SAMPLE, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    for (let i = 0; i < entries.length; i += 1000) {
      await request(baseUrl, 'POST', `/api/v1/data/bulk/svc/${tenant}/${app}`, saved.feedingToken, entries.slice(i, i + 1000));
    }
    lines.push(`fed ${entries.length} Debian packages from test/fixtures/debian-sample.ndjson (indexing in the background)`);
  } else {
    lines.push(`${status.liveDocuments} documents already indexed`);
  }
  lines.push(`try: curl '${baseUrl}/api/v1/search/${tenant}/${app}?q=vim&rows=3'`);
  lines.push(`search page: ${baseUrl}/ui/${tenant}/${app}`);
  return { tenant, app, ...saved, lines };
}
