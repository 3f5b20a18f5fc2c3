import { describe, expect, it } from 'vitest';
import sampleText from '../fixtures/debian-sample.ndjson?raw';
import schema from '../fixtures/debian-packages.schema.json';
import { decodeShare, encodeShare, othersShare, SearchIndex, sumShares } from '../../src/search/engine';
import type { IndexConfig } from '../../src/search/engine/types';
import { searchAppSchemaInput } from '../../src/search/field-schema';
import { shardOf } from '../../src/search/shards';

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
