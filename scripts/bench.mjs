// `npm run bench [-- --help]`: feeding, search, suggest and cold start on the Debian catalogue, against peers and the physical limit
// (issue 7). Writes docs/benchmarks.md and prints it. Settings through the environment:
//   BENCH_ROUNDS (5) and BENCH_ROUND_SECONDS (1.2): each load scenario's windows, alternated with as long windows of the
//   empty route on the same connections (scripts/bench/load.mjs), BENCH_SECONDS (10: each replica run, and the empty
//   route when it runs alone), BENCH_WARMUP_SECONDS (2), BENCH_SERIAL_SECONDS (3), BENCH_CONNECTIONS (32),
//   BENCH_CHUNK_DOCS (500), BENCH_FEED_CONCURRENCY (4), BENCH_SECONDS_PER_QUERY_TYPE (10, in-process comparison),
//   BENCH_ONLY (`http` = wrangler dev steps 1-4, `engine` = in-process steps 4-5, `vectors` = the engine's vector and
//   hybrid search in Node only, `hybrid` = the hybrid search app over HTTP only (fed, then its load rows beside the
//   empty route's), `ui` = the search page's keystroke to rendered results in Chromium (step 7); all by default),
//   BENCH_UI_URL (the base URL of a running `npm run dev`, e.g. http://127.0.0.1:8787: step 7 types into its demo
//   app's page instead of starting its own wrangler dev with the demo catalogue),
//   BENCH_SCALE (a number of documents, e.g. 1000000: scale mode, the wrangler dev steps only, on a catalogue of that
//   size derived from the Debian one by scripts/bench/variants.mjs; writes docs/benchmarks-scale.md instead),
//   BENCH_SHARDS (1 to 16, default 1: the search app's shard Durable Objects, set before its full feed; in scale mode
//   each shard's index is also built alone in Node for its memory and its part's latency, scripts/bench/shards-in-node.mjs),
//   BENCH_SCALE_HTTP (a number of documents, default BENCH_SCALE: the catalogue fed over HTTP in scale mode, when the
//   machine cannot feed the whole scale catalogue in time; the per-shard Node step still takes BENCH_SCALE),
//   BENCH_LOCAL_OBSERVABILITY (`true` keeps wrangler dev's local trace collector on for the HTTP steps; off by default,
//   as production has no such collector: see the note above the report's HTTP table),
//   BENCH_ACCEPT_ENCODING (the `Accept-Encoding` of every HTTP request, default Chrome's `gzip, deflate, br, zstd`;
//   empty: none, so answers come uncompressed),
//   BENCH_CPU_PROF (a directory: the in-process run writes a V8 CPU profile there, for profiling the engine, and so do
//   the profiled HTTP runs, one `http-<scenario>.cpuprofile` each, for DevTools),
//   CATALOGUE_DIR (the catalogue's directory, default ../shared/data). No options but --help.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSearchApp, timedSearch } from './bench/api.mjs';
import { readEnvelopes, readSchema } from './bench/catalogue.mjs';
import { variantCatalogue } from './bench/variants.mjs';
import { bundleEngine } from './bench/engine-bundle.mjs';
import { fullFeed } from './bench/feed.mjs';
import { hybridLoad } from './bench/hybrid.mjs';
import { CLIENT_HEADERS, loadScenarios, runScenario, SCENARIOS } from './bench/load.mjs';
import { groupCpu, groupRssMb } from './bench/process-cpu.mjs';
import { profileDuring } from './bench/profile.mjs';
import { keywordRequest } from './bench/queries.mjs';
import { replicaScenarios } from './bench/replicas.mjs';
import { renderReport } from './bench/report.mjs';
import { startDemoServer } from './bench/demo-server.mjs';
import { measureSearchPage } from './bench/search-page.mjs';
import { renderShardsInNode } from './bench/shards-in-node.mjs';
import { applyMigrations, freePort, startWrangler } from './bench/server.mjs';
import { elapsedMs, now } from './bench/stats.mjs';
import { scriptArgs } from './cli.mjs';

scriptArgs(import.meta.url, 'npm run bench');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const setting = (name, fallback) => Number(process.env[name] ?? fallback);
const settings = {
  seconds: setting('BENCH_SECONDS', 10),
  rounds: setting('BENCH_ROUNDS', 5),
  roundSeconds: setting('BENCH_ROUND_SECONDS', 1.2),
  warmupSeconds: setting('BENCH_WARMUP_SECONDS', 2),
  serialSeconds: setting('BENCH_SERIAL_SECONDS', 3),
  connections: setting('BENCH_CONNECTIONS', 32),
  chunkSize: setting('BENCH_CHUNK_DOCS', 500),
  feedConcurrency: setting('BENCH_FEED_CONCURRENCY', 4),
  secondsPerQueryType: setting('BENCH_SECONDS_PER_QUERY_TYPE', 10),
  shards: setting('BENCH_SHARDS', 1),
  localObservability: process.env.BENCH_LOCAL_OBSERVABILITY === 'true',
  acceptEncoding: CLIENT_HEADERS['accept-encoding'],
};
const scale = process.env.BENCH_SCALE ? Number(process.env.BENCH_SCALE) : undefined;
if (scale !== undefined && !(Number.isInteger(scale) && scale > 0)) throw new Error(`BENCH_SCALE must be a number of documents`);
// Scale mode measures the service over HTTP; the in-process peers would not hold a million documents.
const only = scale ? 'http' : process.env.BENCH_ONLY;
const log = (line) => process.stderr.write(`bench: ${line}\n`);

// Cleanup that also runs on failure and on Ctrl-C: the wrangler process groups, then the temporary state.
const workDir = mkdtempSync(join(tmpdir(), 'edge-search-bench-'));
const running = new Set();
process.on('exit', () => {
  for (const server of running) server.kill('SIGKILL');
  rmSync(workDir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** Runs `use` with the server `start` answers, stopping it afterwards (and on exit). */
async function withServer(start, use) {
  const server = await start();
  running.add(server);
  try {
    return await use(server);
  } finally {
    await server.stop();
    running.delete(server);
  }
}

function runInProcess(engineBundle) {
  const out = join(workDir, 'in-process.json');
  const args = JSON.stringify({
    root,
    engineBundle,
    out,
    iterations: 2000,
    secondsPerType: settings.secondsPerQueryType,
    vectorsOnly: only === 'vectors',
  });
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const child = spawnSync(process.execPath, ['--expose-gc', ...profile, join(root, 'scripts', 'bench', 'in-process.mjs'), args], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`the in-process benchmark exited with ${child.status ?? child.signal}`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

/** Each shard's index of the scale catalogue built alone in Node, one process per shard (`shards-in-node.mjs`). */
function measureShardsInNode(engineBundle) {
  const figures = [];
  for (let shard = 0; shard < settings.shards; shard++) {
    const out = join(workDir, `shard-${shard}.json`);
    const args = JSON.stringify({ root, engineBundle, out, scale, shards: settings.shards, shard, iterations: 200 });
    const child = spawnSync(process.execPath, ['--expose-gc', join(root, 'scripts', 'bench', 'shards-in-node.mjs'), args], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (child.status !== 0) throw new Error(`shard ${shard} in Node exited with ${child.status ?? child.signal}`);
    figures.push(JSON.parse(readFileSync(out, 'utf8')));
  }
  return figures;
}

/** Seconds of each profiled HTTP run. */
const PROFILE_SECONDS = 3;

/** A profiled run per load scenario (after the measured ones: sampling costs CPU), as shares of CPU per part of the path. */
async function profileScenarios(baseUrl, inspectorPort) {
  const profiles = [];
  for (const scenario of SCENARIOS) {
    const saveTo = process.env.BENCH_CPU_PROF ? join(resolve(process.env.BENCH_CPU_PROF), `http-${scenario.id}.cpuprofile`) : undefined;
    const run = () => runScenario(baseUrl, scenario, { connections: settings.connections, seconds: PROFILE_SECONDS });
    profiles.push({ id: scenario.id, label: scenario.label, parts: await profileDuring(root, inspectorPort, run, saveTo) });
  }
  return profiles;
}

const results = {
  meta: {
    date: new Date().toISOString(),
    cores: cpus().length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAtStart: loadavg(),
  },
  settings,
  errors: [],
};

async function step(name, fn) {
  log(`${name}…`);
  try {
    return await fn();
  } catch (err) {
    log(`${name} FAILED: ${err.stack ?? err}`);
    results.errors.push({ step: name, message: String(err.message ?? err) });
    return undefined;
  }
}

const started = now();
const schema = readSchema(root);
const envelopes = scale ? variantCatalogue(readEnvelopes(root), setting('BENCH_SCALE_HTTP', scale)) : readEnvelopes(root);
const persistDir = join(workDir, 'state');
const rootToken = randomBytes(24).toString('base64url');
const serverOptions = async () => ({
  root,
  persistDir,
  port: await freePort(),
  inspectorPort: await freePort(),
  localObservability: settings.localObservability,
  vars: { ADMIN_TOKEN: rootToken, AUTH_TOKEN: randomBytes(24).toString('base64url') },
});

const stepsOf = {
  http: ['server', 'keyword', 'hybrid', 'cold'],
  hybrid: ['server', 'hybrid'],
  engine: ['engine'],
  vectors: ['engine'],
  ui: ['ui'],
};
const runs = (name) => !only || stepsOf[only]?.includes(name);

if (scale) results.shardsInNode = await step('each shard in Node', async () => measureShardsInNode(await bundleEngine(root, workDir)));

if (runs('server'))
  await step('server', async () => {
    applyMigrations(root, persistDir);
    const options = await serverOptions();
    await withServer(
      async () => startWrangler(options),
      async ({ baseUrl, pid }) => {
        if (runs('keyword')) {
          // The shards take effect at the full feed's swap.
          const tokens = await createSearchApp(baseUrl, rootToken, schema, { settings: { shards: settings.shards } });
          results.feed = await step('full feed', () =>
            fullFeed({
              baseUrl,
              feedingToken: tokens.feedingToken,
              envelopes,
              chunkSize: settings.chunkSize,
              concurrency: settings.feedConcurrency,
              timeoutMs: Math.max(120_000, envelopes.length * 2),
              cpu: groupCpu(pid),
              rss: groupRssMb(pid),
            }),
          );
          results.load = await step('HTTP load', () => loadScenarios(baseUrl, { ...settings, log }));
          results.profile = await step('HTTP CPU profile', () => profileScenarios(baseUrl, options.inspectorPort));
          // At scale each replica copies its shard's share of the catalogue: about a millisecond per document here.
          const copyTimeoutMs = Math.max(180_000, envelopes.length);
          results.replicas = await step('read replicas', () =>
            replicaScenarios(baseUrl, rootToken, {
              ...settings,
              log,
              copyTimeoutMs,
              root,
              inspectorPort: options.inspectorPort,
              cpu: groupCpu(pid),
              rss: groupRssMb(pid),
            }),
          );
        } else {
          const scenarios = SCENARIOS.filter((scenario) => scenario.id === 'empty');
          results.load = await step('HTTP load', () => loadScenarios(baseUrl, { ...settings, log, scenarios }));
        }
        // Scale mode measures the keyword service on a catalogue far beyond the hybrid app's.
        if (runs('hybrid') && !scale) {
          results.hybrid = await step('hybrid search over HTTP', () =>
            hybridLoad({ root, workDir, baseUrl, rootToken, schema, envelopes, settings, log }),
          );
        }
      },
    );
  });

if (runs('cold'))
  results.cold = await step('cold start', async () => {
    const restart = now();
    return withServer(
      async () => startWrangler(await serverOptions()),
      async ({ baseUrl }) => {
        const startSeconds = elapsedMs(restart) / 1000;
        const first = await timedSearch(baseUrl, keywordRequest(0));
        const second = await timedSearch(baseUrl, keywordRequest(1));
        return { startSeconds, firstSearchMs: first.ms, firstTotal: first.body.result.total, secondSearchMs: second.ms };
      },
    );
  });

if (runs('engine'))
  results.inProcess = await step('engine in Node, vs Orama 3 and MiniSearch', async () => runInProcess(await bundleEngine(root, workDir)));

if (runs('ui'))
  results.searchPage = await step('search page in Chromium', async () => {
    const measure = (server) => measureSearchPage({ ...server, log });
    if (process.env.BENCH_UI_URL)
      return { ...(await measure({ baseUrl: process.env.BENCH_UI_URL, tenant: 'demo', app: 'catalog' })), server: 'npm run dev' };
    const demo = () => startDemoServer({ root, localObservability: settings.localObservability });
    return { ...(await withServer(demo, measure)), server: 'wrangler dev' };
  });

/** The sections of docs/benchmarks.md measured by other scripts (from `## Robustness` on), kept across runs. */
function handWrittenSections(path) {
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const at = previous.indexOf('\n## Robustness');
  return at < 0 ? '' : previous.slice(at);
}

results.meta.seconds = elapsedMs(started) / 1000;
results.meta.loadAtEnd = loadavg();
const report = renderReport(results) + (scale ? `\n\n${renderShardsInNode(results.shardsInNode)}` : '');
// A partial run (BENCH_ONLY) only prints: docs/benchmarks.md always holds a whole run.
if (scale) writeFileSync(join(root, 'docs', 'benchmarks-scale.md'), report + '\n');
else if (!only)
  writeFileSync(join(root, 'docs', 'benchmarks.md'), report + '\n' + handWrittenSections(join(root, 'docs', 'benchmarks.md')));
process.stdout.write(report + '\n');
if (results.errors.length) {
  log(`${results.errors.length} step(s) failed: ${results.errors.map((e) => e.step).join(', ')}`);
  process.exitCode = 1;
}
