/**
 * Document vectors for nearest-neighbour search, beside the keyword index of a search app.
 * Each vector is L2-normalized and kept twice, compactly: int8 codes with one scale per vector
 * (cosine ≈ scale × integer dot product) and a binary code of its signs. A query ranks every vector
 * by the Hamming distance of the binary codes (32 dimensions per XOR and popcount), then reranks the
 * closest RERANK_CANDIDATES by the int8 dot product; equal similarities by id, so shards of an index order them as
 * the whole index does. Pure TypeScript, no Workers imports.
 */
import { compareStrings } from './columns';

/** Binary-code candidates reranked by int8 cosine: enough for recall@10 ≥ 0.95 against exact float32 cosine. */
export const RERANK_CANDIDATES = 200;
/** Candidates of the coarse pass (first 128 bits) whose whole binary codes are compared. */
const COARSE_CANDIDATES = 2000;

const MAGIC = 0x53565831; // "SVX1"
/** Compaction runs once dead ordinals are this share of all ordinals (and at least MIN_DEAD). */
const DEAD_SHARE = 0.3;
const MIN_DEAD = 2048;

export interface VectorHit {
  id: string;
  /** Approximate cosine similarity, -1 to 1. */
  score: number;
}

/** Ordinals are below this (they index typed arrays), so a distance and an ordinal pack into one number exactly. */
const ORDINAL_SPAN = 2 ** 32;

/** Set bits of a 32-bit word per byte (each 0 to 8), in parallel within the word. */
function byteCounts(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (x + (x >>> 4)) & 0x0f0f0f0f;
}

/** Set bits of four 32-bit words: their byte counts added (at most 32 a byte), then the bytes summed by a multiply. */
function popcount128(a: number, b: number, c: number, d: number): number {
  return Math.imul(byteCounts(a) + byteCounts(b) + byteCounts(c) + byteCounts(d), 0x01010101) >>> 24;
}

interface Quantized {
  codes: Int8Array;
  scale: number;
}

/** L2-normalizes and quantizes a vector to int8 with its own scale (max |x| ↦ 127). */
function quantize(vector: ArrayLike<number>): Quantized {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  norm = Math.sqrt(norm) || 1;
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i] / norm));
  const scale = max / 127 || 1;
  const codes = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) codes[i] = Math.round(vector[i] / norm / scale);
  return { codes, scale };
}

export class VectorIndex {
  /** 32-bit words per binary code, a multiple of 4 (unused bits stay 0). */
  readonly words: number;
  ids: string[] = [];
  ordOf = new Map<string, number>();
  alive: Uint8Array = new Uint8Array(0);
  liveCount = 0;
  codes: Int8Array = new Int8Array(0);
  scales: Float32Array = new Float32Array(0);
  bits: Uint32Array = new Uint32Array(0);
  /** Per-query Hamming distances, reused across queries. */
  private distance = new Uint16Array(0);

  constructor(readonly dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`invalid vector dimensions ${dimensions}`);
    this.words = Math.ceil(dimensions / 128) * 4;
  }

  get size(): number {
    return this.liveCount;
  }

  has(id: string): boolean {
    return this.ordOf.has(id);
  }

  /** Inserts or replaces the vector of a document; its length must be `dimensions`. */
  add(id: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dimensions) throw new Error(`a vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    this.remove(id);
    const { codes, scale } = quantize(vector);
    const ord = this.ids.length;
    this.ensureCapacity(ord + 1);
    this.ids.push(id);
    this.ordOf.set(id, ord);
    this.alive[ord] = 1;
    this.liveCount += 1;
    this.setCodes(ord, codes, scale);
  }

  remove(id: string): boolean {
    const ord = this.ordOf.get(id);
    if (ord === undefined) return false;
    this.ordOf.delete(id);
    this.alive[ord] = 0;
    this.liveCount -= 1;
    const dead = this.ids.length - this.liveCount;
    if (dead >= MIN_DEAD && dead >= this.ids.length * DEAD_SHARE) this.compact();
    return true;
  }

  /**
   * The `k` nearest documents to `query` by cosine, best first. `accept` (a filter) is asked in binary-code
   * order until RERANK_CANDIDATES documents pass, so a filtered search still finds its nearest passing documents.
   */
  search(query: ArrayLike<number>, k: number, accept?: (id: string) => boolean): VectorHit[] {
    if (query.length !== this.dimensions) throw new Error(`a query of ${query.length} dimensions in an index of ${this.dimensions}`);
    const q = quantize(query);
    const qbits = new Uint32Array(this.words);
    for (let i = 0; i < this.dimensions; i++) if (q.codes[i] > 0) qbits[i >>> 5] |= 1 << (i & 31);

    const candidates = this.nearestByHamming(qbits, Math.max(k, RERANK_CANDIDATES), accept);
    const dims = this.dimensions;
    const { codes, scales } = this;
    const queryCodes = q.codes;
    const scored = candidates.map((ord) => {
      let dot = 0;
      for (let i = 0, at = ord * dims; i < dims; i++, at++) dot += queryCodes[i] * codes[at];
      return { ord, score: dot * q.scale * scales[ord] };
    });
    scored.sort((a, b) => b.score - a.score || compareStrings(this.ids[a.ord], this.ids[b.ord]));
    return scored.slice(0, k).map(({ ord, score }) => ({ id: this.ids[ord], score }));
  }

  /**
   * Live ordinals nearest by Hamming distance, the first `limit` that `accept` lets through: a coarse pass over the
   * first 128 bits of every code (a counting sort, nearest first through `accept`) keeps COARSE_CANDIDATES, whose
   * whole codes then decide.
   */
  private nearestByHamming(qbits: Uint32Array, limit: number, accept?: (id: string) => boolean): number[] {
    const capacity = this.ids.length;
    const { words, bits, alive } = this;
    if (this.distance.length < capacity) this.distance = new Uint16Array(this.alive.length);
    const distance = this.distance;
    const histogram = new Int32Array(130);
    const DEAD = 129;
    const q0 = qbits[0],
      q1 = qbits[1],
      q2 = qbits[2],
      q3 = qbits[3];
    for (let ord = 0, at = 0; ord < capacity; ord++, at += words) {
      if (!alive[ord]) {
        distance[ord] = DEAD;
        continue;
      }
      const coarse = popcount128(bits[at] ^ q0, bits[at + 1] ^ q1, bits[at + 2] ^ q2, bits[at + 3] ^ q3);
      distance[ord] = coarse;
      histogram[coarse] += 1;
    }
    const wanted = words > 4 ? Math.max(limit, COARSE_CANDIDATES) : limit;
    // Without a filter only the buckets up to the one that reaches `wanted` are needed.
    let last = DEAD - 1;
    if (!accept) {
      for (let d = 0, seen = 0; d < DEAD; d++) {
        seen += histogram[d];
        if (seen >= wanted) {
          last = d;
          break;
        }
      }
    }
    const start = new Int32Array(last + 2);
    for (let d = 0; d <= last; d++) start[d + 1] = start[d] + histogram[d];
    const ordered = new Int32Array(start[last + 1]);
    for (let ord = 0; ord < capacity; ord++) {
      const d = distance[ord];
      if (d <= last) ordered[start[d]++] = ord;
    }
    const coarse: number[] = [];
    for (let i = 0; i < ordered.length && coarse.length < wanted; i++) {
      if (!accept || accept(this.ids[ordered[i]])) coarse.push(ordered[i]);
    }
    if (words <= 4) return coarse;
    // Whole distances and ordinals packed in one number each (distance × 2^32 + ordinal, exact in a double), so a
    // typed array's numeric sort orders them by distance, then ordinal.
    const keys = new Float64Array(coarse.length);
    for (let i = 0; i < coarse.length; i++) {
      const ord = coarse[i];
      let d = distance[ord];
      for (let w = 4, at = ord * words + 4; w < words; w += 4, at += 4)
        d += popcount128(bits[at] ^ qbits[w], bits[at + 1] ^ qbits[w + 1], bits[at + 2] ^ qbits[w + 2], bits[at + 3] ^ qbits[w + 3]);
      keys[i] = d * ORDINAL_SPAN + ord;
    }
    keys.sort();
    const nearest: number[] = [];
    for (let i = 0; i < keys.length && i < limit; i++) nearest.push(keys[i] % ORDINAL_SPAN);
    return nearest;
  }

  /** The binary form: a header with the ids, then scales (float32) and int8 codes of live vectors; signs are recomputed on load. */
  serialize(): Uint8Array {
    const live: number[] = [];
    for (let ord = 0; ord < this.ids.length; ord++) if (this.alive[ord]) live.push(ord);
    const header = new TextEncoder().encode(JSON.stringify(live.map((ord) => this.ids[ord])));
    const headerEnd = 16 + header.length;
    const scalesAt = Math.ceil(headerEnd / 4) * 4;
    const codesAt = scalesAt + live.length * 4;
    const bytes = new Uint8Array(codesAt + live.length * this.dimensions);
    const view = new DataView(bytes.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, this.dimensions, true);
    view.setUint32(8, live.length, true);
    view.setUint32(12, header.length, true);
    bytes.set(header, 16);
    const scales = new Float32Array(bytes.buffer, scalesAt, live.length);
    const codes = new Int8Array(bytes.buffer, codesAt, live.length * this.dimensions);
    live.forEach((ord, i) => {
      scales[i] = this.scales[ord];
      codes.set(this.codes.subarray(ord * this.dimensions, (ord + 1) * this.dimensions), i * this.dimensions);
    });
    return bytes;
  }

  static load(bytes: Uint8Array): VectorIndex {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw new Error('not a vector index snapshot');
    const index = new VectorIndex(view.getUint32(4, true));
    const count = view.getUint32(8, true);
    const headerLength = view.getUint32(12, true);
    const ids = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength))) as string[];
    const scalesAt = bytes.byteOffset + Math.ceil((16 + headerLength) / 4) * 4;
    const codesAt = scalesAt + count * 4;
    // Copies, so the index owns aligned arrays and not the snapshot buffer.
    index.scales = new Float32Array(bytes.buffer.slice(scalesAt, codesAt));
    index.codes = new Int8Array(bytes.buffer.slice(codesAt, codesAt + count * index.dimensions));
    index.alive = new Uint8Array(count).fill(1);
    index.bits = new Uint32Array(count * index.words);
    ids.forEach((id, ord) => {
      index.ids.push(id);
      index.ordOf.set(id, ord);
      index.setBits(ord);
    });
    index.liveCount = count;
    return index;
  }

  /** Drops dead ordinals. */
  private compact(): void {
    const fresh = VectorIndex.load(this.serialize());
    Object.assign(this, {
      ids: fresh.ids,
      ordOf: fresh.ordOf,
      alive: fresh.alive,
      codes: fresh.codes,
      scales: fresh.scales,
      bits: fresh.bits,
    });
  }

  private setCodes(ord: number, codes: Int8Array, scale: number): void {
    this.codes.set(codes, ord * this.dimensions);
    this.scales[ord] = scale;
    this.setBits(ord);
  }

  /** The binary code of a vector: the signs of its int8 codes. */
  private setBits(ord: number): void {
    const base = ord * this.words;
    const codesAt = ord * this.dimensions;
    for (let w = 0; w < this.words; w++) this.bits[base + w] = 0;
    for (let i = 0; i < this.dimensions; i++) if (this.codes[codesAt + i] > 0) this.bits[base + (i >>> 5)] |= 1 << (i & 31);
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.alive.length) return;
    const capacity = Math.max(needed, this.alive.length * 2, 256);
    const grow = <T extends Int8Array | Uint8Array | Float32Array | Uint32Array>(old: T, make: (n: number) => T, per: number): T => {
      const grown = make(capacity * per);
      grown.set(old);
      return grown;
    };
    this.alive = grow(this.alive, (n) => new Uint8Array(n), 1);
    this.scales = grow(this.scales, (n) => new Float32Array(n), 1);
    this.codes = grow(this.codes, (n) => new Int8Array(n), this.dimensions);
    this.bits = grow(this.bits, (n) => new Uint32Array(n), this.words);
  }
}
