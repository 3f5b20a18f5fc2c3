// The engine side of the HTTP bench's search requests, in Node over the whole catalogue: each request as the route
// parses it and the search app's Durable Object answers it (highlighter, search, display fields, highlights, facet
// order, JSON), documents read from memory instead of SQLite. For working on the engine's cost per request:
//
//   npm run bench:engine -- [--against <git ref>] [--ref <git ref>] [--scenarios keyword,filtered] [--rounds N]
//                           [--verify] [--detail] [--cache <dir>] [--help]
//
// Times every scenario's requests round after round (mean, p50 and p99 per request; the mean of this process's CPU
// time beside, as other processes share the machine) and hashes every answer. `--against main` builds that ref's
// engine too and alternates the two request by request in this process, so noise hits both alike; their answer
// hashes must be equal. `--verify` hashes a wider set as well: pages, sorts, facet options, snippets, suggest, the
// relevance cases and a 4-shard split's parts. `--detail` lists the costliest requests of each scenario; `--ref` runs
// a git ref's engine instead of this checkout's; `--cache` keeps the serialized indexes for the next run (callgrind).
// Prints its tables; writes only the --cache directory. CATALOGUE_DIR: the catalogue's directory (default ../shared/data).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readEnvelopes, readSchema } from './catalogue.mjs';
import { bundleEnginePath } from './engine-bundle.mjs';
import { browseRequest, filteredRequest, KEYWORD_QUERIES, keywordRequest, SUGGEST_QUERIES, suggestRequest } from './queries.mjs';
import { MB, memoryAfterGc, percentile } from './stats.mjs';
import { scriptArgs } from '../cli.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const flags = scriptArgs(import.meta.url, 'npm run bench:engine', {
  against: { type: 'string' },
  // Another git ref's engine alone, instead of this checkout's (instruction counts of a before and an after).
  ref: { type: 'string' },
  scenarios: { type: 'string', default: 'keyword,filtered,browse,suggest' },
  rounds: { type: 'string', default: '20' },
  verify: { type: 'boolean', default: false },
  detail: { type: 'boolean', default: false },
  // A directory keeping each engine's serialized index: later runs load it instead of building (for callgrind).
  cache: { type: 'string' },
});
const log = (line) => process.stderr.write(`engine-path: ${line}\n`);

/** This run's files, beside this checkout's node_modules so a git ref's imports resolve; several runs may go at once. */
const workDir = join(root, 'node_modules', '.cache', 'engine-path', String(process.pid));
process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));

/** The `src` of a git ref. */
function checkoutOf(ref) {
  const dir = join(workDir, ref.replace(/[^\w.-]/g, '_'));
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git -C "${root}" archive "${ref}" src | tar -x -C "${dir}"`]);
  return dir;
}

const envelopes = readEnvelopes(root);
const schema = readSchema(root);

/** CPU time of this process in milliseconds (the machine is shared: wall time would count the others' work). */
const cpuMs = () => {
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  return (userCPUTime + systemCPUTime) / 1000;
};
const preciseMs = () => Number(process.hrtime.bigint()) / 1e6;

/** JS heap and array buffer megabytes of `now` more than at `before` (`memoryAfterGc` readings). */
function memorySince(before, now) {
  return (now.heapUsed - before.heapUsed + now.arrayBuffers - before.arrayBuffers) / MB;
}

/** An engine of a checkout: its index built, serialized and loaded as a Durable Object holds it after a restart. */
async function engineOf(label, checkout) {
  const outDir = join(workDir, `bundle-${label.replace(/[^\w.-]/g, '_')}`);
  mkdirSync(outDir, { recursive: true });
  const bundle = await import(await bundleEnginePath(checkout, outDir));
  const config = { fields: bundle.searchAppSchemaInput.parse(schema).fields, sorts: [] };
  const cached = flags.cache && join(flags.cache, `${label.replace(/[^\w.-]/g, '_')}.bin`);
  let bytes = cached && existsSync(cached) ? new Uint8Array(readFileSync(cached)) : undefined;
  if (!bytes) {
    const built = new bundle.SearchIndex(config);
    for (const { header, payload } of envelopes) built.add(header.id, payload);
    bytes = built.serialize();
    if (cached) writeFileSync(cached, bytes);
  }
  const before = globalThis.gc && (await memoryAfterGc());
  const index = bundle.SearchIndex.load(config, bytes.slice());
  const memoryMB = globalThis.gc && memorySince(before, await memoryAfterGc());
  log(`${label}: loaded ${index.size} documents (${globalThis.gc ? `${memoryMB.toFixed(1)} MB` : 'run with --expose-gc for memory'})`);
  return { label, bundle, config, index, payloads: new Map(envelopes.map(({ header, payload }) => [header.id, payload])) };
}

/** The search answer's JSON as the Durable Object serializes it (`Answering.searchAnswer`), its time left at 0. */
function searchAnswer({ bundle, index, payloads }, request) {
  const highlighter = index.highlighter(request);
  const retrieved = bundle.retrievedFields(index.config.fields, request.attributesToRetrieve);
  const found = index.search(request);
  const documents = found.hits.map((hit) => {
    const payload = payloads.get(hit.id) ?? {};
    const shown = { id: hit.id, position: hit.position, document: bundle.displayFields(retrieved, payload) };
    const marks = highlighter.apply(payload);
    if (marks.highlight) shown.highlight = marks.highlight;
    if (marks.snippet) shown.snippet = marks.snippet;
    return shown;
  });
  return JSON.stringify({
    total: found.total,
    time: 0,
    documents,
    facets: bundle.navigationFirst(found.facets, index.config.fields),
    facetStats: found.facetStats,
    paging: { page: request.page, rows: request.rows, total: found.total, totalPages: Math.ceil(found.total / request.rows) },
  });
}

/** A GET search as the route reads it (`fromQueryString`): the query string's fields parsed, `f.{id}` as term or range filters. */
function fromQueryString(bundle, { filters = {}, ...query }) {
  const singles = Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)]));
  const { semanticRatio: _, ...parsed } = bundle.searchQuery.parse({ ...singles, facetLimits: undefined, facetPaths: undefined });
  const termFilters = Object.fromEntries(
    Object.entries(filters).map(([id, filter]) => [id, { filterType: 'term', values: filter.values }]),
  );
  return { ...parsed, filters: termFilters };
}

/** A POST search as the route reads it (`fromBody`). */
function fromBody(bundle, raw) {
  return bundle.searchRequestOfBody(bundle.searchBody.parse(raw));
}

/** The load scenarios' requests (one cycle of each rotation), as the Durable Object receives them. */
const SCENARIOS = {
  keyword: { count: KEYWORD_QUERIES.length, request: (bundle, i) => fromQueryString(bundle, keywordRequest(i)), answer: searchAnswer },
  filtered: { count: 12, request: (bundle, i) => fromBody(bundle, filteredRequest(i)), answer: searchAnswer },
  browse: { count: 60, request: (bundle, i) => fromQueryString(bundle, browseRequest(i)), answer: searchAnswer },
  suggest: {
    count: SUGGEST_QUERIES.length,
    request: (_, i) => suggestRequest(i),
    answer: ({ index }, request) => JSON.stringify(index.suggest(request)),
  },
};

/** Requests beyond the load's, for `--verify`: what else a change must answer alike. */
function* wideRequests() {
  const sorts = [undefined, 'name_asc', 'installedSize_desc'];
  for (let i = 0; i < KEYWORD_QUERIES.length; i++) {
    const { q } = keywordRequest(i);
    for (const page of [1, 3]) for (const sort of sorts) yield { q, page, rows: 10, sort, filters: {} };
    yield { q, page: 1, rows: 7, facetLimit: 5, facets: ['section', 'tags', 'installedSize'], filters: {} };
    yield { q, page: 1, rows: 10, facetPaths: { tags: 'interface' }, facetLimits: { tags: 3 }, filters: {} };
    yield { q, page: 2, rows: 5, attributesToSnippet: [{ field: 'description', words: 6 }], attributesToRetrieve: ['name'], filters: {} };
    yield {
      q,
      page: 1,
      rows: 10,
      filters: {
        section: { filterType: 'term', values: ['libs', 'utils'], filterOperator: 'not' },
        tags: { filterType: 'tree', values: ['role', 'interface'], filterOperator: 'and' },
        'attributes.architecture': { filterType: 'term', values: ['all'] },
      },
    };
  }
  for (let i = 0; i < 12; i++) yield { ...filteredRequest(i), page: 2, sort: 'installedSize_asc' };
  for (let i = 0; i < 10; i++) yield { ...browseRequest(i), sort: i % 2 ? 'name_desc' : undefined, facetLimit: 3 };
}

function hashOf(strings) {
  const hash = createHash('sha256');
  for (const s of strings) hash.update(s).update('\n');
  return hash.digest('hex').slice(0, 16);
}

/** Every answer of `--verify`, hashed by group. */
async function verify(engine) {
  const { bundle, index, config } = engine;
  const groups = {};
  groups.wide = hashOf([...wideRequests()].map((request) => searchAnswer(engine, { ...request })));
  groups.suggest = hashOf(
    [...SUGGEST_QUERIES, 'x', 'debian ga', 'text ed', 'python3-'].flatMap((q) =>
      [3, 10].map((rows) => JSON.stringify([index.suggest({ q, rows }), index.rankedSuggestions({ q, rows })])),
    ),
  );
  const cases = readFileSync(join(root, 'scripts', 'relevance', 'cases.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean);
  const caseQueries = cases.map((line) => JSON.parse(line).query);
  groups.relevance = hashOf(caseQueries.map((q) => JSON.stringify(index.search({ q, page: 1, rows: 10 }))));
  // Four shards as the service splits an app: each shard's part (hits, merge keys, facets, stats), and the merge.
  const shards = Array.from({ length: 4 }, () => new bundle.SearchIndex(config));
  const feedingOrder = new Map();
  for (const { header, payload } of envelopes) {
    feedingOrder.set(header.id, feedingOrder.size);
    shards[bundle.shardOf(header.id, 4)].add(header.id, payload);
  }
  const shares = shards.map((shard) => shard.statisticsShare());
  const summed = bundle.sumShares(shares);
  shards.forEach((shard, i) => shard.useOtherShards(bundle.othersShare(summed, shares[i])));
  const part = { feedingKey: (id) => feedingOrder.get(id) };
  const sharded = [];
  for (const q of [...caseQueries.slice(0, 80), ...KEYWORD_QUERIES]) {
    for (const sort of [undefined, 'installedSize_desc']) {
      const request = { q, page: 1, rows: 10, sort };
      // As the service settles them (`settleParts`): a shard that relaxed the query while others matched it, or kept a
      // typo expansion beyond the whole index's last, answers again.
      const rules = shards.map(() => ({}));
      const ask = (i, shardRules) => shards[i].search(request, undefined, { ...part, ...shardRules });
      const parts = await bundle.settleParts(
        shards.map((_, i) => ask(i, rules[i])),
        rules,
        ask,
      );
      sharded.push(JSON.stringify([parts, bundle.mergeHits(parts, 0, 10)]));
    }
  }
  groups.shards = hashOf(sharded);
  return groups;
}

const checkouts = [
  flags.ref ? [flags.ref, checkoutOf(flags.ref)] : ['this', root],
  ...(flags.against ? [[flags.against, checkoutOf(flags.against)]] : []),
];
const engines = [];
for (const [label, checkout] of checkouts) engines.push(await engineOf(label, checkout));
const scenarioIds = flags.scenarios.split(',').filter(Boolean);
const rounds = Number(flags.rounds);

for (const id of scenarioIds) {
  const scenario = SCENARIOS[id];
  const requests = engines.map(({ bundle }) => Array.from({ length: scenario.count }, (_, i) => scenario.request(bundle, i)));
  const answers = engines.map((engine, e) => requests[e].map((request) => scenario.answer(engine, request)));
  const samples = engines.map(() => []);
  const cpu = engines.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < scenario.count; i++) {
      // Engine after engine per request, the order alternating.
      for (let k = 0; k < engines.length; k++) {
        const e = (round + i + k) % engines.length;
        const cpuStart = cpuMs();
        const start = preciseMs();
        scenario.answer(engines[e], requests[e][i]);
        samples[e].push(preciseMs() - start);
        cpu[e] += cpuMs() - cpuStart;
      }
    }
  }
  engines.forEach((engine, e) => {
    const ms = samples[e];
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    const figures = `mean ${mean.toFixed(3)} ms (cpu ${(cpu[e] / ms.length).toFixed(3)}), p50 ${percentile(ms, 50).toFixed(3)}, p99 ${percentile(ms, 99).toFixed(3)}`;
    console.log(`${id.padEnd(8)} ${engine.label.padEnd(8)} ${figures}, answers ${hashOf(answers[e])}`);
    if (!flags.detail) return;
    // The mean of each request over the rounds, costliest first: what the scenario's mean is made of.
    const perRequest = requests[e].map((request, i) => {
      let sum = 0;
      for (let round = 0; round < rounds; round++) sum += ms[round * scenario.count + i];
      return { q: JSON.stringify(request.q ?? ''), mean: sum / rounds };
    });
    for (const { q, mean: requestMean } of perRequest.sort((a, b) => b.mean - a.mean).slice(0, 12))
      console.log(`  ${requestMean.toFixed(3)} ms ${((requestMean / scenario.count / mean) * 100).toFixed(1)} % ${q}`);
  });
}

// The process's heap and array buffers once the searches are answered (the index, its scratch arrays and query
// caches, the catalogue's documents): compare runs of one engine each (`--ref`).
if (globalThis.gc && engines.length === 1) {
  console.log(
    `memory   ${engines[0].label.padEnd(8)} ${memorySince({ heapUsed: 0, arrayBuffers: 0 }, await memoryAfterGc()).toFixed(1)} MB in all after the searches`,
  );
}
if (flags.verify) for (const engine of engines) console.log(`verify   ${engine.label.padEnd(8)} ${JSON.stringify(await verify(engine))}`);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
