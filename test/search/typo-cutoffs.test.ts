import { describe, expect, it } from 'vitest';
import schema from '../fixtures/debian-packages.schema.json';
import { TYPO_MATCHES, TYPO_WORD, typoNeighbours } from '../fixtures/typo-neighbours';
import {
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
const SHARDS = 4;
const DIMENSIONS = 64;
const documents = typoNeighbours();

interface Engine {
  index: SearchIndex;
  vectors: VectorIndex;
}

const engine = (): Engine => ({ index: new SearchIndex(config), vectors: new VectorIndex(DIMENSIONS) });
const one = engine();
const shards = Array.from({ length: SHARDS }, engine);
for (const { header, payload } of documents) {
  for (const target of [one, shards[shardOf(header.id, SHARDS)]]) {
    target.index.add(header.id, payload);
    target.vectors.add(header.id, conceptVector(String(payload.description), DIMENSIONS));
  }
}
const shares = shards.map(({ index }) => index.statisticsShare());
shards.forEach(({ index }, i) => index.useOtherShards(othersShare(sumShares(shares), shares[i])));
const feedingOrder = new Map(documents.map(({ header }, i) => [header.id, i]));
const part = { feedingKey: (id: string) => feedingOrder.get(id) ?? 0 };
const request: SearchRequest = { q: TYPO_WORD, page: 1, rows: 20 };

/** A keyword search over the shards as `SearchAppClient` runs it; `settle` false: each shard's first part as it is. */
async function shardedSearch(settle = true): Promise<{ total: number; ids: string[] }> {
  const rules: PartRules[] = shards.map(() => ({}));
  const ask = (shard: number, how: PartRules) => shards[shard].index.search(request, undefined, { ...part, ...how });
  const first = shards.map((_, shard) => ask(shard, rules[shard]));
  const parts = settle ? await settleParts(first, rules, ask) : first;
  return {
    total: parts.reduce((sum, found) => sum + found.total, 0),
    ids: mergeHits(
      parts.map((found) => ({ hits: found.hits, merge: found.merge! })),
      0,
      request.rows,
    ).map((hit) => hit.id),
  };
}

describe('typo expansions over shards', () => {
  it("a word with more than 64 typo expansions in the whole index: a shard keeps its own, beyond one index's 64th", async () => {
    expect(one.index.search(request).total).toBe(TYPO_MATCHES);
    // Each shard holds fewer than 64 of the 100 words, so it keeps all it holds.
    expect((await shardedSearch(false)).total).toBe(documents.length);
  });

  it('each shard that kept one beyond answers again with the whole index cutoff: the total and ranking of one index', async () => {
    const single = one.index.search(request);
    expect(await shardedSearch()).toEqual({ total: single.total, ids: single.hits.map((hit) => hit.id) });
  });

  it('a hybrid search normalizes with the keyword scores of the cut expansions, and its parts keep them cut', async () => {
    const vector = conceptVector('music', DIMENSIONS);
    const hybrid = (target: Engine, norms?: HybridNorms) => ({ vectors: target.vectors, vector, ratio: 0.4, norms });
    const { norms, rules } = await hybridNormsOverShards(
      shards.map(({ index }) => index),
      request,
      (shard) => hybrid(shards[shard]),
    );
    const parts = shards.map(({ index }, shard) => index.search(request, hybrid(shards[shard], norms), { ...part, ...rules[shard] }));
    const single = one.index.search(request, { vectors: one.vectors, vector, ratio: 0.4 });
    expect(parts.reduce((sum, found) => sum + found.total, 0)).toBe(single.total);
    const merged = mergeHits(
      parts.map((found) => ({ hits: found.hits, merge: found.merge! })),
      0,
      request.rows,
    );
    expect(merged.map((hit) => hit.id)).toEqual(single.hits.map((hit) => hit.id));
  });
});
