// vitest globalSetup of the browser project, runs in Node: a real `wrangler dev` of this repository seeded like
// `npm run dev` with the demo catalogue (scripts/bench/demo-server.mjs), which builds the search page through
// wrangler's [build].
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDemoServer } from '../../scripts/bench/demo-server.mjs';
import { DEMO_APP, DEMO_TENANT } from './demo';

declare module 'vitest' {
  interface ProvidedContext {
    browserBaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startDemoServer({ root: resolve(import.meta.dirname, '..', '..'), tenant: DEMO_TENANT, app: DEMO_APP });
  project.provide('browserBaseUrl', server.baseUrl);
  return () => server.stop();
}
