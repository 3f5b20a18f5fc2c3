import { describe, expect, it } from 'vitest';
import { othersShare, SearchIndex, sumShares } from '../../src/search/engine';
import type { IndexConfig } from '../../src/search/engine/types';
import { field } from '../fixtures/field';

const config: IndexConfig = {
  fields: [field('name', 'string', { searchMode: 'fuzzy', weight: 10 }), field('description', 'string', { weight: 3 })],
  sorts: [],
};

interface Fixture {
  id: string;
  description: string;
  shard: number;
}

/** The documents as one index and as two shards (each handed the other's statistics), and each hit's merge key by id. */
function oneAndShards(documents: Fixture[]) {
  const one = new SearchIndex(config);
  const shards = [new SearchIndex(config), new SearchIndex(config)];
  for (const { id, description, shard } of documents) {
    for (const index of [one, shards[shard]]) index.add(id, { name: id, description });
  }
  const shares = shards.map((index) => index.statisticsShare());
  shards.forEach((index, i) => index.useOtherShards(othersShare(sumShares(shares), shares[i])));
  const order = new Map(documents.map(({ id }, i) => [id, i]));
  const part = { feedingKey: (id: string) => order.get(id) ?? 0 };
  const keys = (index: SearchIndex, q: string): Map<string, unknown> => {
    const found = index.search({ q, page: 1, rows: 20 }, undefined, part);
    return new Map(found.hits.map((hit, i) => [hit.id, found.merge!.keys[i]]));
  };
  return {
    one,
    whole: (q: string) => keys(one, q),
    sharded: (q: string) => new Map([...keys(shards[0], q), ...keys(shards[1], q)]),
  };
}

/** The keys of one index's hits as the shards give them: each shard answers its own best 20, so those are among them. */
function asSharded(whole: Map<string, unknown>, sharded: Map<string, unknown>): Map<string, unknown> {
  return new Map([...whole.keys()].map((id) => [id, sharded.get(id)]));
}

const letters = [...'abcdefghijklmnopqrstuvwxyz'];

describe('completions over shards', () => {
  /**
   * `swig` says `c++` right before `code`. The whole index holds 80 completions of `c`, more than a word keeps (64):
   * `code` (in 4 documents) and `c++` (3) among those kept, `code` first by frequency. The dictionary lists a node's
   * terms last added first: shard 0, taking `code` in before `c++` (`codegen` comes before `swig` there), lists `c++`
   * first.
   */
  const fillers = [...'xyz'].flatMap((second) => letters.map((third) => `c${second}${third}`));
  const { whole, sharded } = oneAndShards([
    { id: 'codebook', description: 'code samples', shard: 1 },
    { id: 'codegen', description: 'code generator', shard: 0 },
    { id: 'swig', description: 'wrapper for c and c++ code', shard: 0 },
    { id: 'codelite', description: 'code editor', shard: 1 },
    { id: 'cxxtest', description: 'c++ unit tests', shard: 0 },
    { id: 'cppman', description: 'c++ manual pages', shard: 1 },
    { id: 'cwrap', description: 'c wrapper code', shard: 1 },
    ...fillers.map((word, i) => ({ id: `filler${i}`, description: `${word} item`, shard: i % 2 })),
  ]);

  it('a shard scores a completed word before the last as one index does, whatever order its dictionary took the completions in', () => {
    // A question: every counted word is completed, `c` too, and `code` is right after `c++` (a completion of `c`).
    const q = 'wrap my c code';
    expect(whole(q).has('swig')).toBe(true);
    expect(asSharded(whole(q), sharded(q))).toEqual(whole(q));
  });
});

describe('other forms of a word over shards', () => {
  /**
   * 4,056 terms begin with `log`, all added after `logging`, which the dictionary so lists after them in one index;
   * shard 0 holds `logging` and half of them.
   */
  const fillers = [...'abcdef'].flatMap((third) => letters.flatMap((fourth) => letters.map((fifth) => `log${third}${fourth}${fifth}`)));
  const { one, whole, sharded } = oneAndShards([
    { id: 'lumberjack', description: 'logging viewer', shard: 0 },
    { id: 'imageviewer', description: 'image viewer', shard: 1 },
    ...Array.from({ length: 41 }, (_, i) => ({
      id: `logfill${i}`,
      description: fillers.slice(i * 99, i * 99 + 99).join(' '),
      shard: i % 2,
    })),
  ]);

  it('a short stem finds its forms however many terms begin like it, in one index as in each shard', () => {
    // `log` is not the last word, so not completed: only its forms find `logging`.
    const q = 'log viewer';
    expect(one.search({ q, page: 1, rows: 2 }).hits.map((hit) => hit.id)).toEqual(['lumberjack', 'imageviewer']);
    expect(asSharded(whole(q), sharded(q))).toEqual(whole(q));
  });
});

describe('completions following the word before over shards', () => {
  /**
   * 78 terms in three documents each begin with `s`, more than the 64 completions a word keeps: `sky` and `space` (two
   * documents each) are not kept, and count only right after `endless`. One index takes `space` in before `sky`
   * (`stargazer`, on shard 1, comes first), shard 0 `sky` before `space`.
   */
  const fillers = [...'xyz'].flatMap((second) => letters.map((third) => `s${second}${third}`));
  const { one, whole, sharded } = oneAndShards([
    { id: 'runner', description: 'endless runner game', shard: 1 },
    { id: 'stargazer', description: 'outer space viewer', shard: 1 },
    { id: 'skygame', description: 'endless sky, a trading game', shard: 0 },
    { id: 'spacegame', description: 'endless space, a sky trading game', shard: 0 },
    ...fillers.flatMap((word, i) => [0, 1, 2].map((copy) => ({ id: `filler${i}-${copy}`, description: `${word} item`, shard: copy % 2 }))),
  ]);

  it('a field holds at most one of them, so the order they are listed in never changes a score', () => {
    const q = 'endless s';
    expect(one.search({ q, page: 1, rows: 2 }).hits.map((hit) => hit.id)).toEqual(['skygame', 'spacegame']);
    expect(asSharded(whole(q), sharded(q))).toEqual(whole(q));
  });
});
