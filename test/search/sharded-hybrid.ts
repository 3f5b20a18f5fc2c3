import {
  combineHybridNorms,
  settleParts,
  type HybridNorms,
  type HybridQuery,
  type PartRules,
  type SearchIndex,
} from '../../src/search/engine';
import type { SearchRequest } from '../../src/search/engine/types';

/**
 * The first round of a hybrid search over shards as `SearchAppClient` runs it: each shard's normalization part,
 * settled (`settleParts`: a shard that relaxed the query while others matched it is only marked strict), combined into
 * the whole index's normalization; `rules`: how each shard then answers its search part.
 */
export async function hybridNormsOverShards(
  indexes: SearchIndex[],
  request: SearchRequest,
  hybridOf: (shard: number) => HybridQuery,
): Promise<{ norms: HybridNorms; rules: PartRules[] }> {
  const rules: PartRules[] = indexes.map(() => ({}));
  const ask = (shard: number, how: PartRules) => indexes[shard].hybridNormsPart(request, hybridOf(shard), how);
  const parts = await settleParts(
    indexes.map((_, shard) => ask(shard, rules[shard])),
    rules,
    ask,
    false,
  );
  const strict = new Set(rules.flatMap((how, shard) => (how.strict ? [shard] : [])));
  return { norms: combineHybridNorms(parts, strict), rules };
}
