import { describe, expect, it } from 'vitest';
import { compressEnd, splice } from '../../src/search/gzip-splice';

const gunzip = (bytes: Uint8Array) => new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();

describe('gzip answers spliced from a head and an end compressed once', () => {
  it('decode to the head followed by the end, for heads of any length and any characters', async () => {
    const end = `${JSON.stringify({ documents: Array.from({ length: 200 }, (_, i) => ({ id: `p${i}`, title: `Wörter ${i} – 😀` })) })}}`;
    const compressed = await compressEnd(end);
    expect(compressed.deflated.length).toBeLessThan(end.length / 4);
    for (const head of ['', '{"requestId":"ü","result":', 'x'.repeat(70_000).slice(0, 65_535)]) {
      expect(await gunzip(splice(head, compressed))).toBe(head + end);
    }
  });

  it('refuses a head beyond one stored block rather than sending a corrupt answer', async () => {
    expect(() => splice('x'.repeat(65_536), { deflated: new Uint8Array(), crc: 0, length: 0, shift: 0 })).toThrow(RangeError);
  });

  it('checks the whole answer: a flipped byte of the end fails to decode', async () => {
    const compressed = await compressEnd('{"total":1}}');
    const bytes = splice('{"head":', compressed);
    bytes[bytes.length - 9] ^= 1; // the checksum's last byte
    await expect(gunzip(bytes)).rejects.toThrow();
  });
});
