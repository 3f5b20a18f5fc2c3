// Step 3b: keyword search and suggest through read replicas (issue 16): the primary alone, 1 replica, 3 replicas, same
// requests; with shards (scale mode), every shard has its replicas.
// Locally every object runs in one workerd process on this machine, so the figures show what routing through
// replicas costs and whether it scales here, not what a nearer region saves. `MF-CF-Blob` is how `wrangler dev`
// takes a request's `cf` (its continent) from a client; Cloudflare itself sets `cf` and ignores the header.
import { APP, searchPostPath, TENANT } from './api.mjs';
import { runScenario } from './load.mjs';
import { openInspector, profileDuring } from './profile.mjs';
import { keywordRequest, suggestRequest } from './queries.mjs';
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

/** The `cf` of a request from the i-th continent in turn, as `wrangler dev` takes it from a client. */
const fromContinent = (i, continents) => ({ 'mf-cf-blob': JSON.stringify({ continent: continents[i % continents.length] }) });

/**
 * The i-th keyword search by POST (never edge-cached) from the i-th continent in turn. Its facetLimit varies, so
 * the objects' memory of answers rarely holds it and each answer is computed; no `no-cache`, so the replica check
 * uses the version the worker knows, as a browser's search does.
 */
function replicaRequest(i, continents) {
  const body = JSON.stringify({ ...keywordRequest(i), facetLimit: 1 + (i % 1000) });
  return { method: 'POST', path: searchPostPath, body, headers: { 'content-type': 'application/json', ...fromContinent(i, continents) } };
}

/** The i-th suggest by POST, the same way: its `rows` vary from 1 to 20 (10.5 on average) so answers are computed. */
function replicaSuggest(i, continents) {
  const body = JSON.stringify({ ...suggestRequest(i), rows: 1 + (i % 20) });
  return {
    method: 'POST',
    path: `/api/v1/search/suggest/${TENANT}/${APP}`,
    body,
    headers: { 'content-type': 'application/json', ...fromContinent(i, continents) },
  };
}

/** Load figures of one kind of request: `connections` for `seconds`, then one connection for `serialSeconds`. */
async function measure(baseUrl, request, { connections, seconds, warmupSeconds, serialSeconds }) {
  const run = (options) => runScenario(baseUrl, { request }, options);
  if (warmupSeconds) await run({ connections, seconds: warmupSeconds });
  const result = await run({ connections, seconds });
  const serial = serialSeconds ? await run({ connections: 1, seconds: serialSeconds }) : undefined;
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    serialP50: serial?.latency.p50,
    serialP99: serial?.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * Which copy answered each of `count` requests: `{ enam: 12, primary: 3, … }`; of a sharded app, each shard's part
 * counts (`X-Search-Replica` names one copy per shard).
 */
async function servedBy(baseUrl, continents, count) {
  const tally = {};
  for (let i = 0; i < count; i++) {
    const { method, path, body, headers } = replicaRequest(i, continents);
    const res = await fetch(baseUrl + path, { method, body, headers });
    await res.text();
    for (const copy of (res.headers.get('x-search-replica') ?? 'primary').split(',')) tally[copy] = (tally[copy] ?? 0) + 1;
  }
  return tally;
}

/**
 * Seconds until a read from each continent is answered by its replicas alone: every shard's replica copied, caught
 * up and loaded (until then the primaries answer). The first read from every continent goes out at once, so every
 * region copies at the same time, as in production; the load is measured only afterwards, not during the copies.
 */
async function replicasServing(baseUrl, continents, timeoutMs = 180_000) {
  const started = Date.now();
  const serving = async (continent) => {
    const copies = Object.keys(await servedBy(baseUrl, [continent], 1));
    return copies.length === 1 && copies[0] === REGION_OF[continent];
  };
  let waiting = continents;
  while (waiting.length) {
    const answers = await Promise.all(waiting.map(serving));
    waiting = waiting.filter((_, i) => !answers[i]);
    if (!waiting.length) break;
    if (Date.now() - started > timeoutMs)
      throw new Error(`the ${waiting.map((continent) => REGION_OF[continent]).join(', ')} replicas did not serve within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return (Date.now() - started) / 1000;
}

/**
 * The V8 heap in use of `wrangler dev`'s runtime, in MB (locally every Durable Object shares its isolate), and the
 * array buffers' bytes outside it (the indexes' typed arrays) when V8 tells them; undefined when unreadable.
 */
async function heapUsedMb(inspectorPort) {
  try {
    const inspector = await openInspector(inspectorPort);
    try {
      const usage = await inspector.send('Runtime.getHeapUsage');
      return { heap: usage.usedSize / 1e6, buffers: usage.backingStorageSize === undefined ? undefined : usage.backingStorageSize / 1e6 };
    } finally {
      inspector.close();
    }
  } catch {
    return undefined;
  }
}

/** One keyword search alone, waited for up to `timeoutMs`: its wall-clock ms, or undefined when it did not answer. */
async function oneSearchMs(baseUrl, continents, timeoutMs) {
  const { method, path, body, headers } = replicaRequest(0, continents);
  const started = performance.now();
  try {
    await (await fetch(baseUrl + path, { method, body, headers, signal: AbortSignal.timeout(timeoutMs) })).text();
    return performance.now() - started;
  } catch {
    return undefined;
  }
}

/** Searches per second below which a configuration's load is explained: a CPU profile of a run of its searches. */
const EXPLAIN_BELOW = 1;

/**
 * Each configuration: set the app's replicas, wait for their copies, then keyword searches and suggestions measured
 * alike (warm-up, `connections`, one connection); replicas off again at the end. `copyTimeoutMs` bounds the copies.
 * Beside the load: the runtime's memory once copied (V8 heap, array buffers, `rss`: `groupRssMb`), the workerd processes' CPU seconds per wall-clock second during
 * the search load (`cpu`: `groupCpu`), one search alone after it, and where the CPU went when searches barely answered.
 */
export async function replicaScenarios(baseUrl, rootToken, { log, copyTimeoutMs, root, inspectorPort, cpu, rss, ...options }) {
  const appPath = `/api/v1/admin/searchapps/${TENANT}/${APP}`;
  const results = [];
  try {
    for (const configuration of CONFIGURATIONS) {
      const { continents } = configuration;
      await request(baseUrl, 'PUT', appPath, rootToken, { replicas: configuration.regions });
      const copySeconds = configuration.regions.length ? await replicasServing(baseUrl, continents, copyTimeoutMs) : undefined;
      const memory = { ...(await heapUsedMb(inspectorPort)), rss: rss?.() };
      const [cpuBefore, wallBefore] = [cpu?.(), performance.now()];
      const search = await measure(baseUrl, (i) => replicaRequest(i, continents), options);
      const cpuShare = cpu && (cpu() - cpuBefore) / ((performance.now() - wallBefore) / 1000);
      const aloneMs = await oneSearchMs(baseUrl, continents, 120_000);
      const explained =
        search.requestsPerSecond < EXPLAIN_BELOW && inspectorPort
          ? await profileDuring(root, inspectorPort, () =>
              runScenario(baseUrl, { request: (i) => replicaRequest(i, continents) }, options),
            ).catch((error) => [{ label: `not profiled: ${error.message}`, share: 0 }])
          : undefined;
      const suggest = await measure(baseUrl, (i) => replicaSuggest(i, continents), options);
      results.push({
        ...configuration,
        copySeconds,
        memory,
        cpuShare,
        aloneMs,
        explained,
        search,
        suggest,
        servedBy: await servedBy(baseUrl, continents, 30),
      });
      log(
        `replicas: ${configuration.label}: memory ${JSON.stringify(memory)} MB; search ${Math.round(search.requestsPerSecond)} req/s, p50 ${search.p50} ms, p99 ${search.p99} ms, workerd CPU ${cpuShare?.toFixed(2)} s/s, alone ${Math.round(aloneMs ?? -1)} ms; suggest ${Math.round(suggest.requestsPerSecond)} req/s, p50 ${suggest.p50} ms, p99 ${suggest.p99} ms`,
      );
      if (explained) log(`replicas: ${configuration.label}: profile ${JSON.stringify(explained.slice(0, 6))}`);
    }
  } finally {
    // The cold-start step after this one measures the primary.
    await request(baseUrl, 'PUT', appPath, rootToken, { replicas: [] });
  }
  return results;
}
