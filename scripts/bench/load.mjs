// Step 3: autocannon against the running server, one scenario after the other, requests rotated over the query list.
import autocannon from 'autocannon';
import { HYBRID_APP, searchPath, searchPostPath, suggestPath } from './api.mjs';
import { browseRequest, filteredRequest, keywordRequest, suggestRequest } from './queries.mjs';

/** Asks the service for a freshly computed answer: neither the edge cache nor the search app's memory of answers. */
const FRESH = { 'cache-control': 'no-cache' };

/**
 * Each scenario names how its i-th request looks. `empty` is the physical limit the others are compared with.
 * Search scenarios send `Cache-Control: no-cache`, so they measure the whole path; `repeated` measures the same
 * keyword searches answered from the edge cache (the query list repeats every few dozen requests).
 */
export const SCENARIOS = [
  { id: 'empty', label: 'empty route (GET /health)', request: () => ({ method: 'GET', path: '/health' }) },
  {
    id: 'keyword',
    label: 'keyword search + facets (GET)',
    request: (i) => ({ method: 'GET', path: searchPath(keywordRequest(i)), headers: FRESH }),
  },
  {
    id: 'filtered',
    label: 'keyword + term, range, tree filters (POST)',
    request: (i) => ({ method: 'POST', path: searchPostPath, body: JSON.stringify(filteredRequest(i)), headers: FRESH }),
  },
  {
    id: 'browse',
    label: 'empty query browsing + facets (GET)',
    request: (i) => ({ method: 'GET', path: searchPath(browseRequest(i)), headers: FRESH }),
  },
  { id: 'suggest', label: 'suggest (GET)', request: (i) => ({ method: 'GET', path: suggestPath(suggestRequest(i)), headers: FRESH }) },
  {
    id: 'repeated',
    label: 'repeated keyword search + facets (GET, edge cache)',
    request: (i) => ({ method: 'GET', path: searchPath(keywordRequest(i)) }),
  },
];

/** The hybrid app's scenarios (issue 12): the keyword requests at semanticRatio 0.5, computed and from the edge cache. */
const hybridRequest = (i) => ({ ...keywordRequest(i), semanticRatio: 0.5 });
export const HYBRID_SCENARIOS = [
  {
    id: 'hybrid',
    label: 'hybrid search + facets, semanticRatio 0.5 (GET)',
    request: (i) => ({ method: 'GET', path: searchPath(hybridRequest(i), HYBRID_APP), headers: FRESH }),
  },
  {
    id: 'hybrid-repeated',
    label: 'repeated hybrid search + facets (GET, edge cache)',
    request: (i) => ({ method: 'GET', path: searchPath(hybridRequest(i), HYBRID_APP) }),
  },
];

/**
 * What every request of every scenario carries, the empty route's included: the `Accept-Encoding` a browser sends
 * (Chrome's, `BENCH_ACCEPT_ENCODING` to change it, empty for none), so answers are compressed as a browser gets them.
 */
const acceptEncoding = process.env.BENCH_ACCEPT_ENCODING ?? 'gzip, deflate, br, zstd';
export const CLIENT_HEADERS = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};

const headersOf = ({ body, headers }) => ({ ...CLIENT_HEADERS, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) });

async function probe(baseUrl, request) {
  const { method, path, body } = request;
  const res = await fetch(baseUrl + path, { method, body, headers: headersOf(request) });
  const text = await res.text();
  return { status: res.status, text };
}

/** What one answer of the scenario holds, for the report (total hits, facets, suggestions). */
function describeAnswer(text) {
  try {
    const body = JSON.parse(text);
    if (body.result) return `total ${body.result.total}, ${body.result.facets?.length ?? 0} facets`;
    if (body.suggestions) return `${body.suggestions.length} suggestions`;
  } catch {
    // not JSON
  }
  return text.slice(0, 60);
}

/** One autocannon run of a scenario, its i-th request built by `scenario.request(i)`. */
export function runScenario(baseUrl, scenario, { connections, seconds }) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: baseUrl,
        connections,
        duration: seconds,
        requests: [
          {
            setupRequest: (req) => {
              const request = scenario.request(i++);
              return { ...req, method: request.method, path: request.path, body: request.body, headers: headersOf(request) };
            },
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/**
 * Runs every scenario (`SCENARIOS` unless given) whose first requests answer 200 (a short warm-up, then `seconds`
 * measured at `connections`, then `serialSeconds` at one connection); the others are reported as skipped with the
 * status they answered. Shares are of the empty route's req/s, measured here or given as `limit`.
 */
export async function loadScenarios(baseUrl, { connections, seconds, warmupSeconds, serialSeconds, log, scenarios = SCENARIOS, limit }) {
  const results = [];
  for (const scenario of scenarios) {
    const samples = await Promise.all([0, 1, 2].map((i) => probe(baseUrl, scenario.request(i))));
    const failed = samples.find((sample) => sample.status !== 200);
    if (failed) {
      results.push({ ...scenario, skipped: `answers ${failed.status}: ${failed.text.slice(0, 120)}` });
      log(`load: ${scenario.label} skipped (answers ${failed.status})`);
      continue;
    }
    if (warmupSeconds) await runScenario(baseUrl, scenario, { connections, seconds: warmupSeconds });
    const result = await runScenario(baseUrl, scenario, { connections, seconds });
    // One connection: the latency of one request with no queue in front of it.
    const serial = serialSeconds ? await runScenario(baseUrl, scenario, { connections: 1, seconds: serialSeconds }) : undefined;
    results.push({
      ...scenario,
      sample: describeAnswer(samples[0].text),
      requestsPerSecond: result.requests.total / result.duration,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      total: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      serialP50: serial?.latency.p50,
      serialP99: serial?.latency.p99,
    });
    log(
      `load: ${scenario.label}: ${Math.round(results.at(-1).requestsPerSecond)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
    );
  }
  const empty = results.find((r) => r.id === 'empty')?.requestsPerSecond ?? limit;
  for (const r of results) if (!r.skipped && empty) r.shareOfLimit = r.requestsPerSecond / empty;
  return results;
}
