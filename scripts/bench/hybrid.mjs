// Hybrid search over HTTP (issue 12): a second search app on the same catalogue whose descriptions are embedded by
// the tests' OpenAI-compatible stand-in (test/agent/openai-server.ts, concept vectors of 384 dimensions: no real
// embedding model is reachable offline), fed in full, then the hybrid scenarios of the load table.
import { createSearchApp, HYBRID_APP } from './api.mjs';
import { importEmbeddingsStandIn } from './engine-bundle.mjs';
import { fullFeed } from './feed.mjs';
import { HYBRID_SCENARIOS, loadScenarios } from './load.mjs';

/** The catalogue's schema with `description` as the semantic field. */
function semanticSchema(schema) {
  return { ...schema, fields: schema.fields.map((field) => (field.code === 'description' ? { ...field, semantic: true } : field)) };
}

/** Starts the stand-in, creates and fully feeds the hybrid app, runs the hybrid scenarios; answers { feed, load }. */
export async function hybridLoad({ root, workDir, baseUrl, rootToken, schema, envelopes, settings, log }) {
  const { startOpenAiStandIn } = await importEmbeddingsStandIn(root, workDir);
  const standIn = await startOpenAiStandIn({ record: false });
  try {
    const embedder = { provider: 'openai', model: 'concepts', baseUrl: `http://127.0.0.1:${standIn.port}/t/bench/v1`, dimensions: 384 };
    const tokens = await createSearchApp(baseUrl, rootToken, semanticSchema(schema), { app: HYBRID_APP, settings: { embedder } });
    const feed = await fullFeed({
      baseUrl,
      feedingToken: tokens.feedingToken,
      envelopes,
      chunkSize: settings.chunkSize,
      concurrency: settings.feedConcurrency,
      timeoutMs: Math.max(300_000, envelopes.length * 5),
      app: HYBRID_APP,
    });
    const load = await loadScenarios(baseUrl, { ...settings, log, scenarios: HYBRID_SCENARIOS });
    return { feed, load };
  } finally {
    await standIn.close();
  }
}
