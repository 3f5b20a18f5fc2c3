// A `wrangler dev` of this repository on free ports with a fresh persisted state, seeded like `npm run dev` with the
// demo catalogue and answered once every document is searchable: the browser tests' server and the search page
// benchmark's.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_SAMPLE, seedDemo } from '../seed.mjs';
import { applyMigrations, freePort, startWrangler } from './server.mjs';

const INDEXED_WITHIN_MS = 120_000;

/**
 * Starts and seeds the server; answers { baseUrl, tenant, app, documents, stop(), kill() } (`kill` is synchronous, for exit
 * handlers). `localObservability` false turns wrangler's local trace collector off (see startWrangler; on by default).
 */
export async function startDemoServer({ root, tenant = 'demo', app = 'catalog', localObservability }) {
  const state = mkdtempSync(join(tmpdir(), 'edge-search-demo-'));
  const adminToken = randomBytes(24).toString('base64url');
  const removeState = () => rmSync(state, { recursive: true, force: true });
  let server;
  try {
    applyMigrations(root, state);
    server = await startWrangler({
      root,
      persistDir: state,
      port: await freePort(),
      inspectorPort: await freePort(),
      localObservability,
      vars: { ADMIN_TOKEN: adminToken, AUTH_TOKEN: randomBytes(24).toString('base64url') },
    });
    // Tokens are kept in that state, not in the checkout's .dev-seed.json.
    await seedDemo(server.baseUrl, adminToken, { tenant, app, seedFile: join(state, 'seed.json') });
    const documents = readFileSync(DEMO_SAMPLE, 'utf8').split('\n').filter(Boolean).length;
    await waitUntilIndexed(`${server.baseUrl}/api/v1/search/${tenant}/${app}?rows=1&facets=`, documents);
    return {
      baseUrl: server.baseUrl,
      tenant,
      app,
      documents,
      stop: async () => {
        await server.stop();
        removeState();
      },
      kill: (signal) => server.kill(signal),
    };
  } catch (error) {
    await server?.stop();
    removeState();
    throw error;
  }
}

async function waitUntilIndexed(url, documents) {
  const deadline = Date.now() + INDEXED_WITHIN_MS;
  for (;;) {
    // `no-cache`: a fresh count, not a cached answer of a moment ago.
    const answer = await fetch(url, { headers: { 'Cache-Control': 'no-cache' } }).then((r) => r.json());
    if (answer.result?.total === documents) return;
    if (Date.now() > deadline) throw new Error(`the demo catalogue was not indexed in time: ${JSON.stringify(answer).slice(0, 300)}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}
