import { describe, expect, it } from 'vitest';
import sampleText from '../fixtures/debian-sample.ndjson?raw';
import schema from '../fixtures/debian-packages.schema.json';
import {
  combineHybridNorms,
  mergeHits,
  othersShare,
  SearchIndex,
  settleParts,
  sumShares,
  VectorIndex,
  type HybridNorms,
  type PartRules,
} from '../../src/search/engine';
import type { IndexConfig, SearchRequest } from '../../src/search/engine/types';
import { searchAppSchemaInput } from '../../src/search/field-schema';
import { shardOf } from '../../src/search/shards';
import { conceptVector } from './concept-vectors';
import { hybridNormsOverShards } from './sharded-hybrid';

const config: IndexConfig = { fields: searchAppSchemaInput.parse(schema).fields, sorts: [] };
// 200 packages from all over the sample: few enough that vector search is exact (every vector reranked), in one index
// as in each shard, so any difference below comes from how scores are normalized and merged.
const documents = sampleText
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as { header: { id: string }; payload: { name: string; description: string } })
  .filter((_, i) => i % 16 === 0)
  .slice(0, 200);
const SHARDS = 4;
const DIMENSIONS = 64;

interface Engine {
  index: SearchIndex;
  vectors: VectorIndex;
}

function engine(): Engine {
  return { index: new SearchIndex(config), vectors: new VectorIndex(DIMENSIONS) };
}

const one = engine();
const shards = Array.from({ length: SHARDS }, engine);
for (const { header, payload } of documents) {
  const vector = conceptVector(`${payload.name} ${payload.description}`, DIMENSIONS);
  for (const target of [one, shards[shardOf(header.id, SHARDS)]]) {
    target.index.add(header.id, payload);
    target.vectors.add(header.id, vector);
  }
}
const shares = shards.map(({ index }) => index.statisticsShare());
shards.forEach(({ index }, i) => index.useOtherShards(othersShare(sumShares(shares), shares[i])));
const feedingOrder = new Map(documents.map(({ header }, i) => [header.id, i]));
const part = { feedingKey: (id: string) => feedingOrder.get(id) ?? 0 };

/**
 * The top ids of one hybrid search over the shards as `SearchAppClient` runs it: normalization first, its parts settled
 * (`settleParts`: a shard that relaxed the query while others matched it is only marked strict), then the search parts
 * with the same rules, settled again.
 */
async function shardedSearch(request: SearchRequest, vector: number[], ratio: number, normalize = true): Promise<string[]> {
  const hybrid = (target: Engine, norms?: HybridNorms) => ({ vectors: target.vectors, vector, ratio, norms });
  const settled = await hybridNormsOverShards(
    shards.map(({ index }) => index),
    request,
    (shard) => hybrid(shards[shard]),
  );
  const norms = normalize ? settled.norms : undefined;
  const { rules } = settled;
  // Each shard answers page 1 of page × rows.
  const start = (request.page - 1) * request.rows;
  const partRequest = { ...request, page: 1, rows: start + request.rows };
  const ask = (i: number, shardRules: PartRules) =>
    shards[i].index.search(partRequest, hybrid(shards[i], norms), { ...part, ...shardRules });
  const parts = await settleParts(
    shards.map((_, i) => ask(i, rules[i])),
    rules,
    ask,
  );
  return mergeHits(
    parts.map((found) => ({ hits: found.hits, merge: found.merge! })),
    start,
    request.rows,
  ).map((hit) => hit.id);
}

function singleSearch(request: SearchRequest, vector: number[], ratio: number): string[] {
  return one.index.search(request, { vectors: one.vectors, vector, ratio }).hits.map((hit) => hit.id);
}

const queries = ['music player', 'photo editor', 'compress files', 'text editor', 'web browser', 'email', 'strategy game', 'library'];
const requests: Array<{ name: string; request: Omit<SearchRequest, 'q'> }> = [
  { name: 'top 10', request: { page: 1, rows: 10 } },
  { name: 'page 2', request: { page: 2, rows: 7 } },
  { name: 'filtered', request: { page: 1, rows: 10, filters: { section: { filterType: 'term', values: ['libs', 'utils', 'games'] } } } },
  { name: 'sorted by name', request: { page: 1, rows: 10, sort: 'name_asc' } },
];

describe('hybrid search over shards', () => {
  it.each(requests)('ranks every query, $name, as one index does at every ratio', async ({ request }) => {
    for (const q of queries) {
      const vector = conceptVector(q, DIMENSIONS);
      for (const ratio of [0.2, 0.5, 0.8, 1]) {
        const single = singleSearch({ ...request, q }, vector, ratio);
        expect(single.length, `${q} at ${ratio}`).toBeGreaterThan(0);
        expect(await shardedSearch({ ...request, q }, vector, ratio), `${q} at ${ratio}`).toEqual(single);
      }
    }
  });

  it("differs from one index when each shard normalizes alone (what the whole index's normalization fixes)", async () => {
    const differing: string[] = [];
    for (const q of queries) {
      const vector = conceptVector(q, DIMENSIONS);
      const request = { q, page: 1, rows: 10 };
      if ((await shardedSearch(request, vector, 0.5, false)).join() !== singleSearch(request, vector, 0.5).join()) differing.push(q);
    }
    expect(differing.length).toBeGreaterThan(0);
  });

  it("combines the shards' parts into the whole index's normalization", () => {
    const norms = combineHybridNorms(
      [
        {
          keywordBest: 3,
          nearest: [
            { id: 'a', score: 0.9 },
            { id: 'c', score: 0.5 },
          ],
          relaxed: false,
        },
        { keywordBest: 7, nearest: [{ id: 'b', score: 0.5 }], relaxed: true },
        { keywordBest: 5, nearest: [], relaxed: false },
      ],
      new Set([1]),
    );
    // The relaxed shard answers strictly, so its keyword score does not count; every similarity does.
    expect(norms).toEqual({ keywordBest: 5, vectorBest: 0.9, vectorWorst: 0.5, lastNeighbour: 'c' });
  });
});
