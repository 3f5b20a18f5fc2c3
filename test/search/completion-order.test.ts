import { describe, expect, it } from 'vitest';
import { othersShare, SearchIndex, sumShares } from '../../src/search/engine';
import type { IndexConfig } from '../../src/search/engine/types';
import { field } from '../fixtures/field';

const config: IndexConfig = {
  fields: [field('name', 'string', { searchMode: 'fuzzy', weight: 10 }), field('description', 'string', { weight: 3 })],
  sorts: [],
};

/**
 * `swig` says `c++` right before `code`. The whole index holds 80 completions of `c`, more than a word keeps (64):
 * `code` (in 4 documents) and `c++` (3) among those kept, `code` first by frequency. The dictionary lists a node's
 * terms last added first: shard 0, taking `code` in before `c++` (`codegen` comes before `swig` there), lists `c++`
 * first.
 */
const fillers = [...'xyz'].flatMap((second) => [...'abcdefghijklmnopqrstuvwxyz'].map((third) => `c${second}${third}`));
const documents: Array<{ id: string; description: string; shard: number }> = [
  { id: 'codebook', description: 'code samples', shard: 1 },
  { id: 'codegen', description: 'code generator', shard: 0 },
  { id: 'swig', description: 'wrapper for c and c++ code', shard: 0 },
  { id: 'codelite', description: 'code editor', shard: 1 },
  { id: 'cxxtest', description: 'c++ unit tests', shard: 0 },
  { id: 'cppman', description: 'c++ manual pages', shard: 1 },
  { id: 'cwrap', description: 'c wrapper code', shard: 1 },
  ...fillers.map((word, i) => ({ id: `filler${i}`, description: `${word} item`, shard: i % 2 })),
];

const one = new SearchIndex(config);
const shards = [new SearchIndex(config), new SearchIndex(config)];
for (const { id, description, shard } of documents) {
  for (const index of [one, shards[shard]]) index.add(id, { name: id, description });
}
const shares = shards.map((index) => index.statisticsShare());
shards.forEach((index, i) => index.useOtherShards(othersShare(sumShares(shares), shares[i])));
const order = new Map(documents.map(({ id }, i) => [id, i]));
const part = { feedingKey: (id: string) => order.get(id) ?? 0 };

/** Each hit's merge key (criteria and score) by id. */
function keys(index: SearchIndex, q: string): Map<string, unknown> {
  const found = index.search({ q, page: 1, rows: 20 }, undefined, part);
  return new Map(found.hits.map((hit, i) => [hit.id, found.merge!.keys[i]]));
}

describe('completions over shards', () => {
  it('a shard scores a completed word before the last as one index does, whatever order its dictionary took the completions in', () => {
    // A question: every counted word is completed, `c` too, and `code` is right after `c++` (a completion of `c`).
    const q = 'wrap my c code';
    const whole = keys(one, q);
    const sharded = new Map([...keys(shards[0], q), ...keys(shards[1], q)]);
    expect(whole.has('swig')).toBe(true);
    // Each shard answers its own best 20: the keys of one index's 20 among them, the same.
    expect(new Map([...whole.keys()].map((id) => [id, sharded.get(id)]))).toEqual(whole);
  });
});
