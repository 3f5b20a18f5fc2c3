import { describe, expect, it } from 'vitest';
import sampleText from '../fixtures/debian-sample.ndjson?raw';
import schema from '../fixtures/debian-packages.schema.json';
import { decodeShare, encodeShare, othersShare, SearchIndex, sumShares } from '../../src/search/engine';
import type { IndexConfig } from '../../src/search/engine/types';
import { searchAppSchemaInput } from '../../src/search/field-schema';
import { shardOf } from '../../src/search/shards';
import { field } from '../fixtures/field';

const config: IndexConfig = { fields: searchAppSchemaInput.parse(schema).fields, sorts: [] };
const SHARDS = 3;
const shards = Array.from({ length: SHARDS }, () => new SearchIndex(config));
for (const line of sampleText.split('\n').filter(Boolean)) {
  const { header, payload } = JSON.parse(line) as { header: { id: string }; payload: Record<string, unknown> };
  shards[shardOf(header.id, SHARDS)].add(header.id, payload);
}
const shares = shards.map((index) => index.statisticsShare());
const others = othersShare(sumShares(shares), shares[0]);

describe('statistics share storage', () => {
  it('reads back what it wrote, typed arrays and all, also from bytes that do not start aligned', () => {
    expect(others.foreign?.hashes.length).toBeGreaterThan(0);
    expect(others.completions?.prefixes.length).toBeGreaterThan(0);
    const bytes = encodeShare(others);
    expect(decodeShare(bytes)).toEqual(others);
    const unaligned = new Uint8Array(bytes.length + 1);
    unaligned.set(bytes, 1);
    expect(decodeShare(unaligned.subarray(1))).toEqual(others);
    expect(decodeShare(encodeShare(shares[1]))).toEqual({ ...shares[1], completions: undefined, foreign: undefined });
  });

  it('still reads the JSON form shares were stored in before, until the next exchange rewrites it', () => {
    const json = JSON.stringify(others, (_, value: unknown) =>
      ArrayBuffer.isView(value) ? { [value.constructor.name]: Array.from(value as Int32Array) } : value,
    );
    expect(decodeShare(new TextEncoder().encode(json))).toEqual(others);
  });

  it('reads a share stored before title endings were counted as counting none', () => {
    const { keys, beginnings, wholes } = others.titles;
    const json = JSON.stringify({ ...others, titles: { keys, beginnings, wholes } }, (_, value: unknown) =>
      ArrayBuffer.isView(value) ? { [value.constructor.name]: Array.from(value as Int32Array) } : value,
    );
    expect(others.titles.endings.some((count) => count > 0)).toBe(true);
    expect(decodeShare(new TextEncoder().encode(json)).titles.endings).toEqual(new Int32Array(keys.length));
  });

  it('scores a shard alike with the share read back', () => {
    const read = new SearchIndex(config);
    for (const line of sampleText.split('\n').filter(Boolean)) {
      const { header, payload } = JSON.parse(line) as { header: { id: string }; payload: Record<string, unknown> };
      if (shardOf(header.id, SHARDS) === 0) read.add(header.id, payload);
    }
    shards[0].useOtherShards(others);
    read.useOtherShards(decodeShare(encodeShare(others)));
    for (const q of ['editor', 'music player', 'libr', 'pyhton']) {
      // A shard's part carries its hits' merge keys, scores among them.
      const part = (index: SearchIndex) => index.search({ q, page: 1, rows: 10 }, undefined, { feedingKey: () => 0 }).merge;
      expect(part(read)?.keys.length).toBeGreaterThan(0);
      expect(part(read)).toEqual(part(shards[0]));
    }
  });
});

describe('typo expansions over shards', () => {
  it('keeps in each shard its part of the nearest terms one index keeps, ranked by whole-index frequencies', () => {
    // 75 terms one substitution from `bcde`, two documents each in shard 0, and `bcdz`: once in shard 0, 20 times in
    // shard 1. One index keeps `bcdz` (the most frequent) and the first 63 others; shard 0 must keep the same.
    const fuzzyConfig: IndexConfig = { fields: [field('name', 'string', { searchMode: 'fuzzy', weight: 1 })], sorts: [] };
    const letters = [...'abcdefghijklmnopqrstuvwxyz'];
    const near = [0, 1, 2].flatMap((at) =>
      letters.filter((l) => l !== 'bcde'[at]).map((l) => 'bcde'.slice(0, at) + l + 'bcde'.slice(at + 1)),
    );
    const documents: Array<[string, number]> = [
      ['bcdz-0', 0],
      ...Array.from({ length: 20 }, (_, i): [string, number] => [`bcdz-${i + 1}`, 1]),
      ...near.flatMap((term): Array<[string, number]> => [
        [`${term}-a`, 0],
        [`${term}-b`, 0],
      ]),
    ];
    const one = new SearchIndex(fuzzyConfig);
    const parts = [new SearchIndex(fuzzyConfig), new SearchIndex(fuzzyConfig)];
    for (const [id, shard] of documents) {
      const payload = { name: id.split('-')[0] };
      one.add(id, payload);
      parts[shard].add(id, payload);
    }
    const partShares = parts.map((index) => index.statisticsShare());
    parts.forEach((index, i) => index.useOtherShards(othersShare(sumShares(partShares), partShares[i])));
    const ids = (index: SearchIndex) => index.search({ q: 'bcde', page: 1, rows: 500 }).hits.map((hit) => hit.id);
    expect(ids(one)).toHaveLength(21 + 63 * 2);
    expect(ids(one)).toContain('bcdz-0');
    expect([...ids(parts[0]), ...ids(parts[1])].sort()).toEqual(ids(one).sort());
  });
});
