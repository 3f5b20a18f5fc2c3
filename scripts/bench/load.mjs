// Step 3: autocannon against the running server, each scenario beside the empty route, requests rotated over the query list.
import autocannon from 'autocannon';
import { HYBRID_APP, searchPath, searchPostPath, suggestPath } from './api.mjs';
import { browseRequest, filteredRequest, keywordRequest, suggestRequest } from './queries.mjs';
import { percentile } from './stats.mjs';

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

const EMPTY = SCENARIOS.find((scenario) => scenario.id === 'empty');

/**
 * One autocannon run of `scenario` beside the empty route on the same connections: `warmupSeconds` of the scenario's
 * requests, then windows alternating the empty route's and the scenario's requests (empty, scenario, …, empty:
 * `rounds` of the scenario, `rounds + 1` of the empty route). A window switches what new requests ask; it is measured
 * from the moment every connection has sent a request of its own kind (so every request of the window before has
 * answered) for `roundSeconds`, counting the answers of its own requests. Answers each window's count, measured
 * seconds, latencies and non-2xx answers, and the run's errors.
 */
function runBesideEmpty(baseUrl, scenario, { connections, warmupSeconds, rounds, roundSeconds }) {
  const phases = 2 * rounds + 1;
  // Phase -1 is the warm-up (the scenario's requests); even phases ask the empty route, odd phases the scenario.
  let phase = -1;
  let sentInPhase = 0;
  let scenarioRequests = 0;
  const windows = Array.from({ length: phases }, (_, at) => ({
    scenario: at % 2 === 1,
    answers: 0,
    latencies: [],
    non2xx: 0,
    settledAt: undefined,
    endedAt: undefined,
  }));
  let run;
  const next = () => {
    if (phase >= 0) windows[phase].endedAt = performance.now();
    phase++;
    sentInPhase = 0;
    if (phase === phases) run.stop();
  };
  return new Promise((resolve, reject) => {
    run = autocannon(
      {
        url: baseUrl,
        connections,
        // Ended by `stop()` after the last window (checked every `sampleInt` ms); the duration is only a bound.
        duration: warmupSeconds + phases * (roundSeconds + 60),
        sampleInt: 50,
        requests: [
          {
            setupRequest: (req, context) => {
              const sentAt = performance.now();
              const window = windows[phase];
              // Each connection has one request in flight: once all have sent one in this phase, the phase is settled.
              if (window && ++sentInPhase === connections) {
                window.settledAt = sentAt;
                setTimeout(next, roundSeconds * 1000);
              }
              Object.assign(context, { phase, sentAt });
              const request = window && !window.scenario ? EMPTY.request(0) : scenario.request(scenarioRequests++);
              return { ...req, method: request.method, path: request.path, body: request.body, headers: headersOf(request) };
            },
            onResponse: (status, _body, { phase: sentIn, sentAt }) => {
              const window = windows[sentIn];
              const answeredAt = performance.now();
              if (sentIn !== phase || window?.settledAt === undefined || answeredAt < window.settledAt) return;
              window.answers++;
              window.latencies.push(answeredAt - sentAt);
              if (status < 200 || status > 299) window.non2xx++;
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        const measured = windows.map(({ settledAt, endedAt, ...window }) => ({ ...window, seconds: (endedAt - settledAt) / 1000 }));
        resolve({ windows: measured, errors: result.errors + result.timeouts });
      },
    );
    setTimeout(next, warmupSeconds * 1000);
  });
}

/** Req/s, latency percentiles (whole ms, as autocannon's) and non-2xx answers of measured windows taken together. */
function windowFigures(windows) {
  const latencies = windows.flatMap((window) => window.latencies);
  const total = windows.reduce((sum, window) => sum + window.answers, 0);
  const seconds = windows.reduce((sum, window) => sum + window.seconds, 0);
  const at = (p) => Math.round(percentile(latencies, p));
  return {
    requestsPerSecond: total / seconds,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    total,
    non2xx: windows.reduce((sum, window) => sum + window.non2xx, 0),
  };
}

/**
 * The share of the empty route side by side: each round's req/s over the mean req/s of the empty route's windows
 * just before and after it; the median over rounds and the lowest and highest round.
 */
function sharesOfEmpty(windows) {
  const rate = (window) => window.answers / window.seconds;
  const ratios = [];
  for (let at = 1; at < windows.length - 1; at += 2) ratios.push(rate(windows[at]) / ((rate(windows[at - 1]) + rate(windows[at + 1])) / 2));
  return { shareOfLimit: percentile(ratios, 50), shareRange: [Math.min(...ratios), Math.max(...ratios)] };
}

/**
 * Runs every scenario (`SCENARIOS` unless given) whose first requests answer 200; the others are reported as skipped
 * with the status they answered. Every scenario but the empty route runs beside it (`runBesideEmpty`), so its share
 * compares the same moments of the machine; the empty route's row gathers its windows of all those runs (alone, when
 * it is the only scenario: `warmupSeconds`, then `seconds`). Each scenario then runs `serialSeconds` at one connection.
 */
export async function loadScenarios(
  baseUrl,
  { connections, seconds, warmupSeconds, serialSeconds, rounds, roundSeconds, log, scenarios = SCENARIOS },
) {
  const results = [];
  const emptyWindows = [];
  const serialOf = (scenario) => (serialSeconds ? runScenario(baseUrl, scenario, { connections: 1, seconds: serialSeconds }) : undefined);
  for (const scenario of scenarios) {
    const samples = await Promise.all([0, 1, 2].map((i) => probe(baseUrl, scenario.request(i))));
    const failed = samples.find((sample) => sample.status !== 200);
    if (failed) {
      results.push({ ...scenario, skipped: `answers ${failed.status}: ${failed.text.slice(0, 120)}` });
      log(`load: ${scenario.label} skipped (answers ${failed.status})`);
      continue;
    }
    const row = { ...scenario, sample: describeAnswer(samples[0].text) };
    results.push(row);
    if (scenario === EMPTY) continue;
    const run = await runBesideEmpty(baseUrl, scenario, { connections, warmupSeconds, rounds, roundSeconds });
    emptyWindows.push(...run.windows.filter((window) => !window.scenario));
    // One connection: the latency of one request with no queue in front of it.
    const serial = await serialOf(scenario);
    Object.assign(row, windowFigures(run.windows.filter((window) => window.scenario)), sharesOfEmpty(run.windows), {
      errors: run.errors,
      serialP50: serial?.latency.p50,
      serialP99: serial?.latency.p99,
    });
    log(
      `load: ${scenario.label}: ${Math.round(row.requestsPerSecond)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ${(row.shareOfLimit * 100).toFixed(1)} % of the empty route beside it (rounds ${row.shareRange.map((share) => (share * 100).toFixed(1)).join('–')} %; req/s by window, empty first: ${run.windows.map((window) => Math.round(window.answers / window.seconds)).join(' ')})`,
    );
  }
  const empty = results.find((row) => row.id === EMPTY.id && !row.skipped);
  if (empty) {
    const alone = emptyWindows.length ? undefined : await measureAlone(baseUrl, { connections, seconds, warmupSeconds });
    const serial = await serialOf(EMPTY);
    Object.assign(empty, alone ?? windowFigures(emptyWindows), {
      errors: alone?.errors ?? 0,
      shareOfLimit: 1,
      serialP50: serial?.latency.p50,
      serialP99: serial?.latency.p99,
    });
    log(`load: ${empty.label}: ${Math.round(empty.requestsPerSecond)} req/s, p50 ${empty.p50} ms, p99 ${empty.p99} ms`);
  }
  return results;
}

/** The empty route on its own (no other scenario to run beside): a warm-up, then `seconds` measured. */
async function measureAlone(baseUrl, { connections, seconds, warmupSeconds }) {
  if (warmupSeconds) await runScenario(baseUrl, EMPTY, { connections, seconds: warmupSeconds });
  const result = await runScenario(baseUrl, EMPTY, { connections, seconds });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
