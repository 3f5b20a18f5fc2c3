/**
 * Gzip answers whose end was compressed once: an answer sent many times differs only in its head (the caller's
 * requestId, the time taken), so its end is compressed once (raw deflate) and each answer is the gzip member
 * header, the head as a stored (uncompressed) deflate block, the compressed end and the checksum of the whole,
 * combined from the head's and the end's without reading the end again (zlib's `crc32_combine`).
 */

/** An answer's end, compressed once, with what a splice needs of its uncompressed bytes. */
export interface CompressedEnd {
  /** Raw deflate of the end, its last block final. */
  deflated: Uint8Array;
  /** CRC-32 of the end's UTF-8 bytes. */
  crc: number;
  /** Length of the end's UTF-8 bytes. */
  length: number;
  /** The operator that moves a CRC-32 past `length` bytes of zeros (`x^(8·length) mod P`), for combining. */
  shift: number;
}

const POLYNOMIAL = 0xedb88320;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLYNOMIAL ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** `a · b mod P` over GF(2), in CRC-32's reflected bit order. */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let product = 0;
  for (;;) {
    if (a & m) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
  }
  return product >>> 0;
}

/** `x^(2^n) mod P` for n = 0…31. */
const POWERS_OF_TWO = (() => {
  const table = new Uint32Array(32);
  let p = 0x40000000; // x^1
  table[0] = p;
  for (let n = 1; n < 32; n++) table[n] = p = multiplyModP(p, p);
  return table;
})();

/** `x^(8·bytes) mod P`: multiplying a CRC by it appends `bytes` zero bytes. */
function shiftOf(bytes: number): number {
  let p = 0x80000000; // x^0
  for (let n = bytes, k = 3; n; n >>>= 1, k++) if (n & 1) p = multiplyModP(POWERS_OF_TWO[k & 31], p);
  return p;
}

const encoder = new TextEncoder();

/** Compresses `end` once, for any number of `splice`s. */
export async function compressEnd(end: string): Promise<CompressedEnd> {
  const bytes = encoder.encode(end);
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const deflated = new Uint8Array(await new Response(stream).arrayBuffer());
  return { deflated, crc: crc32(bytes), length: bytes.length, shift: shiftOf(bytes.length) };
}

/** gzip member header: magic, deflate, no flags, no time, no extra flags, unknown OS. */
const GZIP_HEADER = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
/** A stored block holds at most this many bytes. */
const STORED_MAX = 0xffff;

/** The gzip bytes of `head` followed by the compressed end. */
export function splice(head: string, end: CompressedEnd): Uint8Array {
  const headBytes = encoder.encode(head);
  if (headBytes.length > STORED_MAX) throw new RangeError('head too long for one stored block');
  const out = new Uint8Array(GZIP_HEADER.length + 5 + headBytes.length + end.deflated.length + 8);
  const view = new DataView(out.buffer);
  out.set(GZIP_HEADER);
  let at = GZIP_HEADER.length;
  // Stored block, not final: BFINAL 0, BTYPE 00, padded to the byte; LEN and its one's complement, little-endian.
  out[at] = 0;
  view.setUint16(at + 1, headBytes.length, true);
  view.setUint16(at + 3, ~headBytes.length & 0xffff, true);
  out.set(headBytes, (at += 5));
  out.set(end.deflated, (at += headBytes.length));
  at += end.deflated.length;
  view.setUint32(at, (multiplyModP(end.shift, crc32(headBytes)) ^ end.crc) >>> 0, true);
  view.setUint32(at + 4, (headBytes.length + end.length) >>> 0, true);
  return out;
}
