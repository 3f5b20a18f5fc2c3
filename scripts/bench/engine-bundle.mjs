// Our engine for Node: src/search/engine bundled with esbuild, used by the benchmark and the relevance suite.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles src/search/engine/index.ts (and the schema parser that fills field defaults) into `outDir/engine.mjs`.
 * Answers the bundle's path, or undefined when the engine is not in this checkout.
 */
export async function bundleEngine(root, outDir) {
  if (!existsSync(join(root, 'src', 'search', 'engine', 'index.ts'))) return undefined;
  return bundle(
    root,
    "export { SearchIndex, displayFields, mergeHits, othersShare, settleParts, sumShares } from './src/search/engine/index.ts'; export { shardOf } from './src/search/shards.ts'; export { VectorIndex } from './src/search/engine/vectors.ts'; export { searchAppSchemaInput } from './src/search/field-schema.ts';",
    join(outDir, 'engine.mjs'),
  );
}

/**
 * The engine with what a search app's Durable Object wraps around it for an answer (the route's request parsing,
 * facet order, display fields), for measuring the whole engine side of a search in Node (engine-path.mjs).
 */
export async function bundleEnginePath(root, outDir) {
  return bundle(
    root,
    "export { SearchIndex, displayFields, retrievedFields, mergeHits, othersShare, settleParts, sumShares } from './src/search/engine/index.ts'; export { shardOf } from './src/search/shards.ts'; export { navigationFirst } from './src/search/answers.ts'; export { searchAppSchemaInput } from './src/search/field-schema.ts'; export { searchBody, searchQuery } from './src/contract/search.ts'; export { searchRequestOfBody } from './src/search/search-request.ts';",
    join(outDir, 'engine-path.mjs'),
  );
}

/** The tests' OpenAI-compatible stand-in (test/agent/openai-server.ts) for Node: `startOpenAiStandIn` serves embeddings. */
export async function importEmbeddingsStandIn(root, outDir) {
  const outfile = await bundle(root, "export { startOpenAiStandIn } from './test/agent/openai-server.ts';", join(outDir, 'stand-in.mjs'));
  return import(outfile);
}

/** Bundles the TypeScript module source `contents` (paths relative to the checkout) into one ES module for Node. */
async function bundle(root, contents, outfile) {
  await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** The bundle's exports and the index config of a search-app schema (field defaults filled as the service does). */
export async function importEngine(bundle, schema) {
  const { searchAppSchemaInput, ...engine } = await import(bundle);
  return { ...engine, config: { fields: searchAppSchemaInput.parse(schema).fields, sorts: [] } };
}
