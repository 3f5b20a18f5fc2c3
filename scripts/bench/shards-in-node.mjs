// Scale mode (BENCH_SCALE with BENCH_SHARDS): each shard's index of the scale catalogue built alone in one Node process
// started with --expose-gc by scripts/bench.mjs (documents routed by the service's id hash), for what wrangler dev
// cannot tell apart: the memory one shard's object holds (JS heap + ArrayBuffers after a gc, the isolate's 128 MB
// counts both) and the engine's time for a shard's part of a search or suggest. Argument: a JSON of
// { root, engineBundle, out, scale, shards, shard, iterations }; writes the shard's figures as JSON to `out`.
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { readEnvelopes, readSchema } from './catalogue.mjs';
import { importEngine } from './engine-bundle.mjs';
import { browseRequest, keywordRequest, suggestRequest } from './queries.mjs';
import { elapsedMs, fixed, MB, memoryAfterGc, now, percentile, thousands } from './stats.mjs';
import { variantCatalogue } from './variants.mjs';

/** A shard's part asks 1.5 × the default 50 facet values + 10 (`shardFacetLimit`) and its suggestions 4 × rows. */
const PART_FACET_LIMIT = 85;
const SUGGEST_OVERSAMPLING = 4;

/** p50 and p99 in ms of `iterations` calls of `run(i)` after a tenth as many warm-up calls. */
function latency(iterations, run) {
  for (let i = 0; i < iterations / 10; i++) run(i);
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const start = now();
    run(i);
    samples.push(elapsedMs(start));
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** One shard's figures (a process of its own per shard, so no other shard's memory stays behind). */
export async function measureShard({ root, engineBundle, scale, shards, shard, iterations }) {
  if (typeof globalThis.gc !== 'function') throw new Error('shards-in-node.mjs needs node --expose-gc');
  const { SearchIndex, shardOf, config } = await importEngine(engineBundle, readSchema(root));
  const catalogue = variantCatalogue(readEnvelopes(root), scale);
  const part = { feedingKey: () => 0 };
  const before = await memoryAfterGc();
  const started = now();
  const index = new SearchIndex(config);
  for (const { header, payload } of catalogue) if (shardOf(header.id, shards) === shard) index.add(header.id, payload);
  const buildSeconds = elapsedMs(started) / 1000;
  const after = await memoryAfterGc();
  const memoryMB = (after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / MB;
  // The catalogue's parsed originals count in `before`: kept alive until here, so the gc above does not subtract them.
  if (!catalogue.length) throw new Error('an empty catalogue');
  const keyword = latency(iterations, (i) =>
    index.search({ ...keywordRequest(i), page: 1, facetLimit: PART_FACET_LIMIT }, undefined, part),
  );
  const browse = latency(iterations, (i) => {
    const request = browseRequest(i);
    index.search({ ...request, rows: request.page * request.rows, page: 1, facetLimit: PART_FACET_LIMIT }, undefined, part);
  });
  const suggest = latency(iterations, (i) => index.rankedSuggestions({ ...suggestRequest(i), rows: 10 * SUGGEST_OVERSAMPLING }));
  return { shard, documents: index.size, buildSeconds, memoryMB, keyword, browse, suggest };
}

/** The markdown section of the per-shard figures. */
export function renderShardsInNode(figures) {
  if (!figures?.length) return '';
  const max = (pick) => Math.max(...figures.map(pick));
  const largest = figures.reduce((a, b) => (b.memoryMB > a.memoryMB ? b : a));
  const lines = [
    '## One shard in Node (engine only, each shard built alone)',
    '',
    `Each of the ${figures.length} shards' documents (routed by the service's id hash) indexed in one Node process, one shard at a time: memory = JS heap + ArrayBuffers retained after a gc (a Durable Object's 128 MB counts both; the stored documents live in SQLite, not here); a part = what the shard computes for one sharded request (keyword + facets with ${PART_FACET_LIMIT} values per facet, browsing pages 1 to 5, suggest of ${10 * SUGGEST_OVERSAMPLING}). Without the other shards' statistics share (a few MB more at most; the lookup costs no measurable time).`,
    '',
    '| shard | documents | build s | memory MB | keyword part p50 / p99 ms | browse part p50 / p99 ms | suggest part p50 / p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.shard} | ${thousands(f.documents)} | ${fixed(f.buildSeconds)} | ${fixed(f.memoryMB)} | ${fixed(f.keyword.p50, 2)} / ${fixed(f.keyword.p99, 2)} | ${fixed(f.browse.p50, 2)} / ${fixed(f.browse.p99, 2)} | ${fixed(f.suggest.p50, 2)} / ${fixed(f.suggest.p99, 2)} |`,
    ),
    '',
    `Largest shard: ${fixed(largest.memoryMB)} MB (shard ${largest.shard}, ${thousands(largest.documents)} documents; target ≤ 100 MB per shard: ${largest.memoryMB <= 100 ? 'met' : '**MISSED**'}); slowest p99: keyword ${fixed(
      max((f) => f.keyword.p99),
      2,
    )} ms, browse ${fixed(
      max((f) => f.browse.p99),
      2,
    )} ms, suggest ${fixed(
      max((f) => f.suggest.p99),
      2,
    )} ms.`,
  ];
  return lines.join('\n');
}

// Run as a child process by scripts/bench.mjs (imported there for the report only).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = JSON.parse(process.argv[2]);
  writeFileSync(options.out, JSON.stringify(await measureShard(options)));
}
