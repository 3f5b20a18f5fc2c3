// Steps 4 (engine heap, build, serialize, load) and 5 (ours vs Orama 3 vs MiniSearch), in one Node process
// started with --expose-gc by scripts/bench.mjs. Argument: a JSON of { root, engineBundle?, out, iterations, secondsPerType }.
// Writes its figures as JSON to `out`.
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { cataloguePaths, readSchema } from './catalogue.mjs';
import { importEngine } from './engine-bundle.mjs';
import { miniSearchEngine, oramaEngine, ourEngine } from './peers.mjs';
import { browseRequest, filteredRequest, keywordRequest, suggestRequest } from './queries.mjs';
import { elapsedMs, MB, memoryAfterGc, now, percentile } from './stats.mjs';
import { measureVectors } from './vectors.mjs';

const options = JSON.parse(process.argv[2]);
if (typeof globalThis.gc !== 'function') throw new Error('in-process.mjs needs node --expose-gc');

/**
 * What an index holds: memory read while it lives less memory read once it was dropped, not counting `allocatedBetween`
 * bytes of array buffers made between the two readings.
 */
function heldMemory(held, dropped, allocatedBetween = 0) {
  const heapMB = (held.heapUsed - dropped.heapUsed) / MB;
  const buffersMB = (held.arrayBuffers - dropped.arrayBuffers + allocatedBetween) / MB;
  return { heapMB, buffersMB, memoryMB: heapMB + buffersMB };
}

async function memoryDelta(before) {
  const after = await memoryAfterGc();
  const heapMB = (after.heapUsed - before.heapUsed) / MB;
  const buffersMB = (after.arrayBuffers - before.arrayBuffers) / MB;
  return { heapMB, buffersMB, memoryMB: heapMB + buffersMB };
}

const log = (line) => process.stderr.write(`in-process: ${line}\n`);

// Raw lines stay in memory for the whole run; each engine gets freshly parsed documents,
// so the heap it keeps after a gc is what it really holds.
const lines = gunzipSync(readFileSync(cataloguePaths(options.root).documents))
  .toString('utf8')
  .split('\n')
  .filter(Boolean);

/** Builds an engine from the whole catalogue, measuring time and retained heap. */
async function build(engine) {
  const before = await memoryAfterGc();
  const start = now();
  for (const line of lines) engine.add(JSON.parse(line));
  engine.finish?.();
  const buildMs = elapsedMs(start);
  const memory = await memoryDelta(before);
  log(
    `${engine.name}: ${engine.size()} documents in ${(buildMs / 1000).toFixed(1)} s, heap +${memory.heapMB.toFixed(1)} MB, array buffers +${memory.buffersMB.toFixed(1)} MB`,
  );
  return { engine: engine.name, documents: engine.size(), buildSeconds: buildMs / 1000, ...memory };
}

const results = { engines: [], queries: [] };
const engines = [];

if (options.engineBundle) {
  const { SearchIndex, VectorIndex, displayFields, config } = await importEngine(options.engineBundle, readSchema(options.root));
  const ours = ourEngine(SearchIndex, config);
  const building = await build(ours);
  // Ours is measured by removal, memory while its index lives less memory once it is dropped: the baseline drifts by
  // tens of MB during the run (about 30 MB held at the start is freed at some moment, not always the same), and a
  // whole run once read the loaded index as −18.9 MB by addition.
  const withBuilt = await memoryAfterGc();

  const serializeStart = now();
  const bytes = ours.serialize();
  const serializeMs = elapsedMs(serializeStart);

  // The loaded index replaces the built one: that is the state a Durable Object holds after a restart.
  const probes = [keywordRequest(0), keywordRequest(15), filteredRequest(3), browseRequest(1)];
  const builtTotals = probes.map((request) => ours.keyword(request).total);
  ours.replaceWith(undefined);
  const built = { ...building, ...heldMemory(withBuilt, await memoryAfterGc(), bytes.byteLength) };
  // A fresh copy of the bytes each time, so whatever the loaded index keeps of them is counted.
  const loadStart = now();
  ours.replaceWith(SearchIndex.load(config, bytes.slice()));
  const loadMs = elapsedMs(loadStart);
  const withLoaded = await memoryAfterGc();
  ours.replaceWith(undefined);
  const loadedMemory = heldMemory(withLoaded, await memoryAfterGc());
  const loaded = SearchIndex.load(config, bytes.slice());
  ours.replaceWith(loaded);
  const loadedTotals = probes.map((request) => ours.keyword(request).total);

  results.engine = {
    ...built,
    serializeSeconds: serializeMs / 1000,
    serializedMB: bytes.byteLength / MB,
    loadSeconds: loadMs / 1000,
    loadedHeapMB: loadedMemory.heapMB,
    loadedBuffersMB: loadedMemory.buffersMB,
    loadedMemoryMB: loadedMemory.memoryMB,
    loadedAnswersSame: JSON.stringify(builtTotals) === JSON.stringify(loadedTotals),
  };
  results.engines.push(built);
  engines.push(ours);
  results.highlight = measureHighlight(loaded, displayFields);
  const ids = lines.map((line) => JSON.parse(line).header.id);
  results.vectors = await measureVectors({ VectorIndex, index: loaded, ids, keywordRequest, memoryAfterGc, iterations: 500 });
  const v = results.vectors;
  log(
    `vectors: ${v.documents} × ${v.dimensions}, heap + buffers +${v.memoryMB.toFixed(1)} MB, recall@10 ${v.recallAt10.toFixed(3)}, vector p50 ${v.vectorOnly.p50.toFixed(2)} ms (float32 brute force ${v.bruteForce.p50.toFixed(1)} ms), hybrid p50 ${v.hybrid.p50.toFixed(2)} ms`,
  );
  log(
    `ours: serialize ${serializeMs.toFixed(0)} ms, ${(bytes.byteLength / MB).toFixed(1)} MB, load ${loadMs.toFixed(0)} ms, heap +${loadedMemory.heapMB.toFixed(1)} MB, array buffers +${loadedMemory.buffersMB.toFixed(1)} MB`,
  );
}

/**
 * What highlighting and snippets (issue 13) add to a search answer: the searched display fields marked and a
 * 10-word snippet of the description, for the 10 hits of each keyword query, as the Durable Object does it.
 */
function measureHighlight(index, displayFields) {
  const lineOf = new Map(lines.map((line, i) => [JSON.parse(line).header.id, i]));
  const pages = Array.from({ length: 50 }, (_, i) => {
    const request = keywordRequest(i);
    const documents = index
      .search({ page: 1, ...request })
      .hits.map((hit) => displayFields(index.config.fields, JSON.parse(lines[lineOf.get(hit.id)]).payload));
    return { q: request.q, documents };
  });
  const snippets = { attributesToSnippet: [{ field: 'description', words: 10 }] };
  const run = ({ q, documents }) => {
    const highlighter = index.highlighter({ q, ...snippets });
    for (const document of documents) highlighter.apply(document);
  };
  for (let i = 0; i < 500; i++) run(pages[i % pages.length]);
  const ms = [];
  for (let i = 0; i < options.iterations; i++) {
    const start = now();
    run(pages[i % pages.length]);
    ms.push(elapsedMs(start));
  }
  const figures = { hits: 10, count: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99) };
  log(`highlight + snippet of 10 hits: p50 ${figures.p50.toFixed(3)} ms, p99 ${figures.p99.toFixed(3)} ms`);
  return figures;
}

// BENCH_ONLY=vectors: the engine and its vectors, without the peers.
if (options.vectorsOnly) {
  writeFileSync(options.out, JSON.stringify(results, null, 2));
  process.exit(0);
}

for (const engine of [oramaEngine(), miniSearchEngine()]) {
  results.engines.push(await build(engine));
  engines.push(engine);
}

const QUERY_TYPES = [
  { id: 'keyword', label: 'keyword + facets', request: keywordRequest },
  { id: 'filtered', label: 'keyword + term, range, tree filters', request: filteredRequest },
  { id: 'browse', label: 'empty query browsing + facets', request: browseRequest },
  { id: 'suggest', label: 'suggest', request: suggestRequest },
];

const MIN_SAMPLES = 20;

async function timed(fn, request) {
  const start = now();
  const answer = fn(request);
  if (answer && typeof answer.then === 'function') await answer;
  return elapsedMs(start);
}

for (const type of QUERY_TYPES) {
  const capable = engines.filter((engine) => engine[type.id]);
  const samples = new Map(capable.map((engine) => [engine.name, []]));
  for (const engine of capable) {
    const warmUntil = Date.now() + 2000;
    for (let i = 0; i < 10 && Date.now() < warmUntil; i++) await timed(engine[type.id], type.request(i));
  }
  const deadline = Date.now() + options.secondsPerType * 1000;
  // Side by side: each request goes to every engine in turn, the order rotating, so noise hits all alike.
  // At least MIN_SAMPLES each, even when a slow peer spends the time budget.
  for (let i = 0; i < options.iterations && (i < MIN_SAMPLES || Date.now() < deadline); i++) {
    for (let k = 0; k < capable.length; k++) {
      const engine = capable[(i + k) % capable.length];
      samples.get(engine.name).push(await timed(engine[type.id], type.request(i)));
    }
  }
  for (const engine of engines) {
    const ms = samples.get(engine.name);
    results.queries.push({
      type: type.id,
      label: type.label,
      engine: engine.name,
      ...(ms ? { count: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99) } : { unsupported: true }),
      ...(type.id === 'suggest' && engine.suggestNote ? { note: engine.suggestNote } : {}),
    });
  }
  log(`${type.label}: ${[...samples].map(([name, ms]) => `${name} p50 ${percentile(ms, 50).toFixed(2)} ms`).join(', ')}`);
}

writeFileSync(options.out, JSON.stringify(results, null, 2));
