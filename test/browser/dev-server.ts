// vitest globalSetup of the browser project, runs in Node: a real `wrangler dev` of this repository on free
// ports with a fresh persisted state (which builds the search page through wrangler's [build]), seeded like
// `npm run dev` with the demo catalogue, answered once every document is searchable.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { applyMigrations, freePort, startWrangler } from '../../scripts/bench/server.mjs';
import { seedDemo } from '../../scripts/seed.mjs';
import { DEMO_APP, DEMO_DOCUMENTS, DEMO_TENANT } from './demo';

declare module 'vitest' {
  interface ProvidedContext {
    browserBaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const root = resolve(import.meta.dirname, '..', '..');
  const state = mkdtempSync(join(tmpdir(), 'edge-search-browser-'));
  const adminToken = randomBytes(24).toString('base64url');
  applyMigrations(root, state);
  const server = await startWrangler({
    root,
    persistDir: state,
    port: await freePort(),
    inspectorPort: await freePort(),
    vars: { ADMIN_TOKEN: adminToken, AUTH_TOKEN: randomBytes(24).toString('base64url') },
  });
  try {
    await seedDemo(server.baseUrl, adminToken, { tenant: DEMO_TENANT, app: DEMO_APP, seedFile: join(state, 'seed.json') });
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = await fetch(`${server.baseUrl}/api/v1/search/${DEMO_TENANT}/${DEMO_APP}?rows=1&facets=`).then(
        (r) => r.json() as Promise<{ result?: { total: number } }>,
      );
      if (answer.result?.total === DEMO_DOCUMENTS) break;
      if (Date.now() > deadline) throw new Error(`the demo catalogue was not indexed in time: ${JSON.stringify(answer).slice(0, 300)}`);
      await new Promise((done) => setTimeout(done, 250));
    }
  } catch (error) {
    await server.stop();
    rmSync(state, { recursive: true, force: true });
    throw error;
  }
  project.provide('browserBaseUrl', server.baseUrl);
  return async () => {
    await server.stop();
    rmSync(state, { recursive: true, force: true });
  };
}
