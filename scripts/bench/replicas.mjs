// Step 3b: keyword search through read replicas (issue 16): the primary alone, 1 replica, 3 replicas, same requests.
// Locally every object runs in one workerd process on this machine, so the figures show what routing through
// replicas costs and whether it scales here, not what a nearer region saves. `MF-CF-Blob` is how `wrangler dev`
// takes a request's `cf` (its continent) from a client; Cloudflare itself sets `cf` and ignores the header.
import { APP, searchPostPath, TENANT } from './api.mjs';
import { runScenario } from './load.mjs';
import { keywordRequest } from './queries.mjs';
import { request } from '../seed.mjs';

const CONFIGURATIONS = [
  { id: 'primary', label: 'primary only (no replicas)', regions: [], continents: ['NA'] },
  { id: 'one', label: '1 replica (enam; requests from NA)', regions: ['enam'], continents: ['NA'] },
  {
    id: 'three',
    label: '3 replicas (enam, weur, apac; requests from NA, EU, AS in turn)',
    regions: ['enam', 'weur', 'apac'],
    continents: ['NA', 'EU', 'AS'],
  },
];
const REGION_OF = { NA: 'enam', EU: 'weur', AS: 'apac' };

/**
 * The i-th request: a keyword search by POST (never edge-cached) from the i-th continent in turn. Its facetLimit
 * varies, so the objects' memory of answers rarely holds it and each answer is computed; no `no-cache`, so the
 * replica check uses the version the worker knows, as a browser's search does.
 */
function replicaRequest(i, continents) {
  const body = JSON.stringify({ ...keywordRequest(i), facetLimit: 1 + (i % 1000) });
  const cf = JSON.stringify({ continent: continents[i % continents.length] });
  return { method: 'POST', path: searchPostPath, body, headers: { 'content-type': 'application/json', 'mf-cf-blob': cf } };
}

/** An autocannon run whose i-th request comes from the i-th continent of `continents` in turn. */
function run(baseUrl, continents, options) {
  return runScenario(baseUrl, { request: (i) => replicaRequest(i, continents) }, options);
}

/** Which copy answered each of `count` requests: `{ enam: 12, primary: 3, … }`. */
async function servedBy(baseUrl, continents, count) {
  const tally = {};
  for (let i = 0; i < count; i++) {
    const { method, path, body, headers } = replicaRequest(i, continents);
    const res = await fetch(baseUrl + path, { method, body, headers });
    await res.text();
    const copy = res.headers.get('x-search-replica') ?? 'primary';
    tally[copy] = (tally[copy] ?? 0) + 1;
  }
  return tally;
}

/** Waits until a read from each continent is answered by its replica (the copy of the catalogue is made). */
async function replicasServing(baseUrl, continents, timeoutMs = 180_000) {
  const started = Date.now();
  for (const continent of continents) {
    for (;;) {
      const tally = await servedBy(baseUrl, [continent], 1);
      if (tally[REGION_OF[continent]]) break;
      if (Date.now() - started > timeoutMs) throw new Error(`the ${REGION_OF[continent]} replica did not serve within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return (Date.now() - started) / 1000;
}

/** Each configuration: set the app's replicas, wait for their copies, warm up, measure; replicas off again at the end. */
export async function replicaScenarios(baseUrl, rootToken, { connections, seconds, warmupSeconds, serialSeconds, log }) {
  const appPath = `/api/v1/admin/searchapps/${TENANT}/${APP}`;
  const results = [];
  try {
    for (const configuration of CONFIGURATIONS) {
      await request(baseUrl, 'PUT', appPath, rootToken, { replicas: configuration.regions });
      const copySeconds = configuration.regions.length ? await replicasServing(baseUrl, configuration.continents) : undefined;
      if (warmupSeconds) await run(baseUrl, configuration.continents, { connections, seconds: warmupSeconds });
      const result = await run(baseUrl, configuration.continents, { connections, seconds });
      const serial = serialSeconds ? await run(baseUrl, configuration.continents, { connections: 1, seconds: serialSeconds }) : undefined;
      results.push({
        ...configuration,
        copySeconds,
        requestsPerSecond: result.requests.total / result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        serialP50: serial?.latency.p50,
        serialP99: serial?.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        servedBy: await servedBy(baseUrl, configuration.continents, 30),
      });
      log(
        `replicas: ${configuration.label}: ${Math.round(results.at(-1).requestsPerSecond)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
      );
    }
  } finally {
    // The cold-start step after this one measures the primary.
    await request(baseUrl, 'PUT', appPath, rootToken, { replicas: [] });
  }
  return results;
}
