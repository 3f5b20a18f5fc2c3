/**
 * Merging the parts of a sharded search into the answer one index over all documents would give: hits by their
 * merge keys, facet counts summed (exact while no shard had more values than it returned), numeric facet stats
 * combined, suggestions summed by value. (BM25 statistics are summed at ingest instead: corpus.ts.)
 */
import { compareStrings } from './columns';
import { MAX_EXPANSIONS, typoOrder, type TypoCutoffs, type TypoRank, type TypoReport } from './expansions';
import { childrenOfOpened, type FacetLimits, type OpenedCategories } from './facets';
import type { PartRules } from './search';
import { suggestionOrder, type RankedSuggestion } from './suggest';
import type { Facet, FacetStats, MergeKeyPart, MergeKeys, Suggestion } from './types';

function comparePart(a: MergeKeyPart, b: MergeKeyPart): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return typeof a === 'number' && typeof b === 'number' ? a - b : compareStrings(String(a), String(b));
}

/** Negative when key `a` comes first; a missing value (null) comes last in both directions. */
function compareKeys(order: MergeKeys['order'], a: MergeKeyPart[], b: MergeKeyPart[]): number {
  for (let i = 0; i < order.length; i++) {
    const c = comparePart(a[i], b[i]);
    if (c) return a[i] === null || b[i] === null || order[i] === 'asc' ? c : -c;
  }
  return 0;
}

/**
 * The hits `[start, start + rows)` of the merged order, each shard having answered its best `start + rows` in order
 * with their keys.
 */
export function mergeHits<T>(parts: Array<{ hits: T[]; merge: MergeKeys }>, start: number, rows: number): T[] {
  const order = parts[0]?.merge.order ?? [];
  const all = parts.flatMap((part) => part.hits.map((hit, i) => ({ hit, key: part.merge.keys[i] })));
  all.sort((a, b) => compareKeys(order, a.key, b.key));
  return all.slice(start, start + rows).map(({ hit }) => hit);
}

/** A facet as a shard sends it: values and counts in two arrays (a smaller payload than one object per value). */
export interface CompactFacet {
  id: string;
  name: string;
  values: string[];
  counts: number[];
}

/** Facets in the compact form a shard sends. */
export function compactFacets(facets: Facet[]): CompactFacet[] {
  return facets.map(({ id, name, values }) => ({
    id,
    name,
    values: values.map((value) => value.value),
    counts: values.map((value) => value.count),
  }));
}

/**
 * Facet values each shard returns for a sharded search of `limit` values: Elasticsearch's shard_size rule
 * (1.5 × the limit + 10), so a value strong over all shards but outside one shard's top `limit` still comes.
 */
export function shardFacetLimit(limit: number): number {
  return Math.ceil(limit * 1.5) + 10;
}

/**
 * Facets summed by value, each cut to its limit in the engine's order (count, then value), a facet opened at a
 * path (`opened`) level by level; facets by id. `exhaustive`: every shard returned all its values (fewer than its
 * `shardLimits`, per level of an opened facet), so every count is exact; otherwise a count may miss a shard's
 * documents of a value outside that shard's top values.
 */
export function mergeFacets(
  parts: CompactFacet[][],
  limits: FacetLimits,
  shardLimits: FacetLimits,
  opened: OpenedCategories = () => undefined,
): { facets: Facet[]; exhaustive: boolean } {
  const merged = new Map<string, { name: string; counts: Map<string, number> }>();
  const levelsOf = (id: string, values: string[]) => {
    const categories = opened(id);
    return categories ? childrenOfOpened(values, (value) => value, categories) : [values];
  };
  let exhaustive = true;
  for (const facets of parts) {
    for (const facet of facets) {
      let entry = merged.get(facet.id);
      if (!entry) merged.set(facet.id, (entry = { name: facet.name, counts: new Map() }));
      if (levelsOf(facet.id, facet.values).some((level) => level.length >= shardLimits.of(facet.id))) exhaustive = false;
      facet.values.forEach((value, i) => entry.counts.set(value, (entry.counts.get(value) ?? 0) + facet.counts[i]));
    }
  }
  const byCount = ([va, ca]: [string, number], [vb, cb]: [string, number]) => cb - ca || compareStrings(va, vb);
  const facets = [...merged]
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([id, { name, counts }]) => ({
      id,
      name,
      values: levelsOf(id, [...counts.keys()]).flatMap((level) =>
        level
          .map((value): [string, number] => [value, counts.get(value) ?? 0])
          .sort(byCount)
          .slice(0, limits.of(id))
          .map(([value, count]) => ({ value, count })),
      ),
    }));
  return { facets, exhaustive };
}

/** Numeric facet stats of all shards: extremes of the extremes, sums summed, the average over every counted document. */
export function mergeFacetStats(parts: Array<{ facetStats: Record<string, FacetStats>; facetStatCounts: Record<string, number> }>) {
  const merged: Record<string, FacetStats & { count: number }> = {};
  for (const { facetStats, facetStatCounts } of parts) {
    for (const [id, stats] of Object.entries(facetStats)) {
      const count = facetStatCounts[id] ?? 0;
      const known = merged[id];
      merged[id] = known
        ? {
            min: Math.min(known.min, stats.min),
            max: Math.max(known.max, stats.max),
            sum: known.sum + stats.sum,
            avg: 0,
            count: known.count + count,
          }
        : { ...stats, count };
    }
  }
  const facetStats: Record<string, FacetStats> = {};
  const facetStatCounts: Record<string, number> = {};
  for (const [id, { min, max, sum, count }] of Object.entries(merged)) {
    facetStats[id] = { min, max, avg: count ? sum / count : 0, sum };
    facetStatCounts[id] = count;
  }
  return { facetStats, facetStatCounts };
}

/** Suggestions of all shards, counts summed by value (a completion in any shard is a completion), the best `rows`. */
export function mergeSuggestions(parts: RankedSuggestion[][], rows: number): Suggestion[] {
  const merged = new Map<string, RankedSuggestion>();
  for (const suggestion of parts.flat()) {
    const known = merged.get(suggestion.value);
    merged.set(
      suggestion.value,
      known
        ? { value: suggestion.value, count: known.count + suggestion.count, fuzzy: known.fuzzy && suggestion.fuzzy }
        : { ...suggestion },
    );
  }
  return [...merged.values()]
    .sort(suggestionOrder)
    .slice(0, rows)
    .map(({ value, count }) => ({ value, count }));
}

/**
 * The parts to ask again with `strict`: the ones that relaxed the query (nothing matched its words there) while
 * another part matched them, as one index relaxes only when no document matched.
 */
function partsToAskStrictly(parts: Array<{ relaxed?: boolean }>): number[] {
  if (parts.every((part) => part.relaxed)) return [];
  return parts.flatMap((part, i) => (part.relaxed ? [i] : []));
}

/** A shard's part as `settleParts` reads it. */
export interface SettlingPart {
  relaxed?: boolean;
  typoReport?: TypoReport;
}

/** Rounds of asking again after the first answers: each settles what the one before changed (a part that relaxed once cut). */
const MAX_SETTLING_ROUNDS = 3;

/**
 * Asks again, until one index would answer alike, the parts that relaxed the query while another matched it
 * (strictly; with `askStrictly` false only marked so, for a caller that discounts them) and those that kept a typo
 * expansion beyond the whole index's last (with that cutoff: `typoCutoffs`). `rules`: how each part was asked,
 * updated to how each was last asked (what a later round of the same search asks with).
 */
export async function settleParts<T extends SettlingPart>(
  parts: T[],
  rules: PartRules[],
  ask: (shard: number, rules: PartRules) => Promise<T> | T,
  askStrictly = true,
): Promise<T[]> {
  for (let round = 0; round < MAX_SETTLING_ROUNDS; round++) {
    const strictly = new Set(partsToAskStrictly(parts));
    const cutoffs = typoCutoffs(parts);
    const again: number[] = [];
    parts.forEach((part, shard) => {
      const beyond = cutoffsBeyond(part, cutoffs);
      const newlyStrict = strictly.has(shard) && !rules[shard].strict;
      if (!beyond && !newlyStrict) return;
      rules[shard] = {
        ...rules[shard],
        ...(newlyStrict ? { strict: true } : {}),
        ...(beyond ? { typoCutoffs: { ...rules[shard].typoCutoffs, ...beyond } } : {}),
      };
      if (beyond || askStrictly) again.push(shard);
    });
    if (!again.length) break;
    await Promise.all(again.map(async (shard) => (parts[shard] = await ask(shard, rules[shard]))));
  }
  return parts;
}

/**
 * Per query word whose typo expansions the shards together kept more than `MAX_EXPANSIONS` of, the last one index
 * keeps (in `typoOrder`). Each term one index keeps is among those its shards kept (it ranks as high among a shard's
 * terms), so the first `MAX_EXPANSIONS` of their union are one index's.
 */
export function typoCutoffs(parts: SettlingPart[]): TypoCutoffs {
  const union = new Map<string, Map<string, TypoRank>>();
  for (const part of parts)
    for (const [key, kept] of Object.entries(part.typoReport ?? {})) {
      let ranks = union.get(key);
      if (!ranks) union.set(key, (ranks = new Map()));
      for (const rank of kept) if (!ranks.has(rank.term)) ranks.set(rank.term, rank);
    }
  const cutoffs: TypoCutoffs = {};
  for (const [key, ranks] of union) if (ranks.size > MAX_EXPANSIONS) cutoffs[key] = [...ranks.values()].sort(typoOrder)[MAX_EXPANSIONS - 1];
  return cutoffs;
}

/** The cutoffs of the words `part` kept a typo expansion beyond, if any. */
function cutoffsBeyond(part: SettlingPart, cutoffs: TypoCutoffs): TypoCutoffs | undefined {
  let beyond: TypoCutoffs | undefined;
  for (const [key, kept] of Object.entries(part.typoReport ?? {})) {
    const cutoff = cutoffs[key];
    if (cutoff && kept.some((rank) => typoOrder(rank, cutoff) > 0)) (beyond ??= {})[key] = cutoff;
  }
  return beyond;
}
