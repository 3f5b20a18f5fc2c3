// Our engine for Node: src/search/engine bundled with esbuild, used by the benchmark and the relevance suite.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles src/search/engine/index.ts (and the schema parser that fills field defaults) into `outDir/engine.mjs`.
 * Answers the bundle's path, or undefined when the engine is not in this checkout.
 */
export async function bundleEngine(root, outDir) {
  const entry = join(root, 'src', 'search', 'engine', 'index.ts');
  if (!existsSync(entry)) return undefined;
  const outfile = join(outDir, 'engine.mjs');
  await build({
    stdin: {
      contents:
        "export { SearchIndex, displayFields, mergeCorpusStats, mergeHits } from './src/search/engine/index.ts'; export { shardOf } from './src/search/shards.ts'; export { VectorIndex } from './src/search/engine/vectors.ts'; export { searchAppSchemaInput } from './src/search/field-schema.ts';",
      resolveDir: root,
      loader: 'ts',
    },
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
