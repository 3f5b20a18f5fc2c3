// `npm run relevance [-- --help]`: scores the query sets of scripts/relevance/cases.ndjson for ours, MiniSearch 7 and Orama 3
// on the Debian catalogue (issue 11): hit@1, hit@3, hit@10 and MRR@10 per kind, written to docs/relevance.md.
// `--url http://127.0.0.1:8787 [--tenant demo] [--app catalog]` also scores ours through a running service's HTTP API
// (beside ours in process; the report lists the queries whose top 10 differ between the two).
// `--shards N` compares ours as one index with ours as N shards instead (scripts/relevance/shards.mjs), writing
// only that section of docs/relevance.md and failing when any case's top 10 differs.
// `--save FILE` scores ours in process alone, leaving docs/relevance.md as it is, and writes each case's rank and top 10
// to FILE; `--against FILE` (with or without `--save`) then lists the cases whose first acceptable answer moved since
// that saved run and counts the top 10s that changed: how a ranking change is judged before it lands.
// The catalogue is read from ../shared/data, or CATALOGUE_DIR (a git worktree elsewhere).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnvelopes, readSchema } from './bench/catalogue.mjs';
import { bundleEngine, importEngine } from './bench/engine-bundle.mjs';
import { miniSearchEngine, oramaEngine, ourEngine } from './bench/peers.mjs';
import { elapsedMs, now } from './bench/stats.mjs';
import { KINDS, readCases } from './relevance/cases.mjs';
import { compareOutcomes, renderComparison, savedOutcomes } from './relevance/compare.mjs';
import { httpEngine } from './relevance/http.mjs';
import { firstHit, MRR_DEPTH, summarizeByKind, summarizeSets } from './relevance/metrics.mjs';
import { renderReport, renderSummary } from './relevance/report.mjs';
import { differingCases, shardedEngine, withShardSection } from './relevance/shards.mjs';
import { refuse, scriptArgs } from './cli.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const flags = scriptArgs(import.meta.url, 'npm run relevance', {
  url: { type: 'string' },
  tenant: { type: 'string', default: 'demo' },
  app: { type: 'string', default: 'catalog' },
  shards: { type: 'string' },
  save: { type: 'string' },
  against: { type: 'string' },
});
const log = (line) => process.stderr.write(`relevance: ${line}\n`);
const quick = flags.save !== undefined || flags.against !== undefined;
if (quick && (flags.url || flags.shards))
  refuse('npm run relevance', '--save and --against score ours in process alone, not with --url or --shards');
// Read and written before the catalogue loads, so a wrong path fails at once.
const saved = flags.against === undefined ? undefined : readSaved(flags.against);
if (flags.save !== undefined) writableOrRefuse(flags.save);

function readSaved(file) {
  let saved;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') refuse('npm run relevance', `--against ${file}: no such file`);
    if (error.code) refuse('npm run relevance', `--against ${file}: cannot be read (${error.code})`);
  }
  if (!Array.isArray(saved)) refuse('npm run relevance', `--against ${file}: not a run saved by --save`);
  return saved;
}

function writableOrRefuse(file) {
  try {
    writeFileSync(file, '', { flag: 'a' });
  } catch (error) {
    refuse('npm run relevance', `--save ${file}: cannot be written (${error.code})`);
  }
}

const workDir = mkdtempSync(join(tmpdir(), 'edge-search-relevance-'));
process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));

async function ours() {
  const bundle = await bundleEngine(root, workDir);
  if (!bundle) throw new Error('src/search/engine/index.ts is missing: nothing to score');
  const { SearchIndex, config } = await importEngine(bundle, readSchema(root));
  return ourEngine(SearchIndex, config);
}

/** Builds one engine over the catalogue (unless it answers over HTTP), then asks it every case. */
async function score(makeEngine, envelopes, cases) {
  const engine = await makeEngine();
  if (engine.add) {
    const start = now();
    for (const envelope of envelopes) engine.add(envelope);
    engine.finish?.();
    log(`${engine.name}: built in ${(elapsedMs(start) / 1000).toFixed(1)} s`);
  }
  const start = now();
  const outcomes = [];
  for (const { kind, query, expected, set } of cases) {
    const ranked = await engine.ranked({ q: query, rows: MRR_DEPTH });
    outcomes.push({ kind, query, expected, set, ranked, rank: firstHit(ranked, expected) });
  }
  log(`${engine.name}: ${cases.length} queries in ${(elapsedMs(start) / 1000).toFixed(1)} s`);
  return { engine: engine.name, outcomes, summary: summarizeByKind(outcomes, KINDS), sets: summarizeSets(outcomes, KINDS) };
}

const started = now();
const envelopes = readEnvelopes(root);
const cases = readCases(new Set(envelopes.map((envelope) => envelope.header.id)));
const reportPath = join(root, 'docs', 'relevance.md');

if (flags.shards) {
  const shards = Number(flags.shards);
  const bundle = await bundleEngine(root, workDir);
  const engine = await importEngine(bundle, readSchema(root));
  const single = await score(() => ourEngine(engine.SearchIndex, engine.config), envelopes, cases);
  const sharded = await score(() => shardedEngine(engine, engine.config, shards), envelopes, cases);
  writeFileSync(reportPath, withShardSection(readFileSync(reportPath, 'utf8'), { shards, single, sharded }));
  process.stdout.write(renderSummary([single, sharded]) + '\n');
  const differing = differingCases(single, sharded);
  if (differing.length) log(`${differing.length} cases differ between one index and ${shards} shards (docs/relevance.md)`);
  process.exit(differing.length ? 1 : 0);
}
if (quick) {
  const run = await score(ours, envelopes, cases);
  if (flags.save) writeFileSync(flags.save, JSON.stringify(savedOutcomes(run.outcomes)));
  process.stdout.write(renderSummary([run]) + '\n');
  if (saved) process.stdout.write('\n' + renderComparison(compareOutcomes(saved, run.outcomes)) + '\n');
  process.exit(0);
}
// One engine at a time, so only one index is in memory at once.
const runs = [];
const http = flags.url ? [async () => httpEngine(flags)] : [];
for (const makeEngine of [ours, ...http, miniSearchEngine, oramaEngine]) runs.push(await score(makeEngine, envelopes, cases));

const meta = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  documents: envelopes.length,
  oursVia: flags.url ? `ours in process, and through the HTTP API of ${flags.url}, ${flags.tenant}/${flags.app}` : 'ours in process',
  seconds: elapsedMs(started) / 1000,
};
// The shard comparison's section (`--shards`) stays.
const previous = readFileSync(reportPath, 'utf8');
const shardSection = previous.indexOf('<!-- shards:');
writeFileSync(
  reportPath,
  renderReport({ runs, kinds: KINDS, meta }) + '\n' + (shardSection < 0 ? '' : '\n' + previous.slice(shardSection)),
);
process.stdout.write(renderSummary(runs) + '\n');
