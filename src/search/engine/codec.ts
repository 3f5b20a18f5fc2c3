/**
 * The binary form of an index: a JSON header (string tables, section list) followed by typed-array
 * sections, 8-byte aligned. Encoding drops dead ordinals and unused terms, so it also compacts.
 * Loaded postings stay two flat arrays over the buffer (see TextIndex).
 */
import { NumberColumn, ValueColumn } from './columns';
import { capacity, createState, isAlive, type IndexState } from './state';
import { packSections, unpackSections } from './sections';
import { TextIndex } from './text-index';
import type { IndexConfig } from './types';

const MAGIC = 0x53495832; // "SIX2": postings carry positions since issue 11

type Kind = 'i32' | 'u16' | 'f64';
const ARRAYS = { i32: Int32Array, u16: Uint16Array, f64: Float64Array } as const;
type Section = Int32Array<ArrayBuffer> | Uint16Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

interface Header {
  fingerprint: string;
  ids: string[];
  terms: string[];
  facets: Array<{ id: string; values: string[] }>;
  values: Array<{ code: string; values: string[] }>;
  numbers: string[];
  sections: Array<{ kind: Kind; length: number }>;
}

function configFingerprint(config: IndexConfig): string {
  return JSON.stringify({ fields: config.fields, sorts: config.sorts, ranking: config.ranking });
}

/** The bytes of an index's live documents. */
export function encodeIndex(state: IndexState): Uint8Array {
  const remap = new Int32Array(capacity(state)).fill(-1);
  const ids: string[] = [];
  for (let ord = 0; ord < capacity(state); ord++) {
    if (!isAlive(state, ord)) continue;
    remap[ord] = ids.length;
    ids.push(state.ids[ord]);
  }
  const n = ids.length;
  const sections: Array<Int32Array | Uint16Array | Float64Array> = [];

  // Postings: offsets then entries, for terms that still have a live document.
  const terms: string[] = [];
  const offsets: number[] = [0];
  const entries: number[] = [];
  state.text.terms.forEach((term, termId) => {
    const before = entries.length;
    for (const { data, from, to } of state.text.runs(termId)) {
      for (let p = from; p < to; p += 2) {
        const ord = remap[data[p] >>> 5];
        if (ord >= 0) entries.push((ord << 5) | (data[p] & 31), data[p + 1]);
      }
    }
    if (entries.length > before) {
      terms.push(term);
      offsets.push(entries.length);
    }
  });
  sections.push(Int32Array.from(offsets), Int32Array.from(entries));
  for (const lengths of state.text.lengths) sections.push(reorder(new Uint16Array(n), lengths, remap));

  const encodeColumn = (column: ValueColumn) => {
    const used = new Int32Array(column.values.length).fill(-1);
    const values: string[] = [];
    const first = new Int32Array(n).fill(-1);
    const extra: number[] = [];
    const valueIndex = (id: number) => {
      if (used[id] < 0) {
        used[id] = values.length;
        values.push(column.values[id]);
      }
      return used[id];
    };
    for (let ord = 0; ord < capacity(state); ord++) {
      const to = remap[ord];
      if (to < 0) continue;
      const ids: number[] = [];
      column.forEachId(ord, (id) => ids.push(valueIndex(id)));
      if (ids.length) first[to] = ids[0];
      if (ids.length > 1) extra.push(to, ids.length - 1, ...ids.slice(1));
    }
    sections.push(first, Int32Array.from(extra));
    return values;
  };
  const facets = [...state.facets].map(([id, column]) => ({ id, values: encodeColumn(column) }));
  const values = [...state.values].map(([code, column]) => ({ code, values: encodeColumn(column) }));
  const numbers = [...state.numbers.keys()];
  for (const column of state.numbers.values()) {
    const data = new Float64Array(n);
    for (let ord = 0; ord < capacity(state); ord++) if (remap[ord] >= 0) data[remap[ord]] = column.get(ord);
    sections.push(data);
  }

  const header: Header = {
    fingerprint: configFingerprint(state.config),
    ids,
    terms,
    facets,
    values,
    numbers,
    sections: sections.map((s) => ({ kind: kindOf(s), length: s.length })),
  };
  return packSections(MAGIC, header, sections);
}

/** The index state encoded in `bytes`, which must have been encoded with the same configuration. */
export function decodeIndex(config: IndexConfig, bytes: Uint8Array): IndexState {
  const state = createState(config);
  const packed = unpackSections<Header>(MAGIC, bytes);
  if (!packed) throw new Error('not an encoded search index');
  const { header } = packed;
  if (header.fingerprint !== configFingerprint(config)) throw new Error('index was encoded with another configuration');

  let next = 0;
  const take = (): Section => {
    const { kind, length } = header.sections[next++];
    return packed.take<Section>(ARRAYS[kind], length);
  };

  const n = header.ids.length;
  state.ids = header.ids;
  state.ordOf = new Map(header.ids.map((id, ord) => [id, ord]));
  state.alive = new Uint8Array(Math.max(n, 1024));
  state.alive.fill(1, 0, n);
  state.liveCount = n;

  const offsets = take() as Int32Array;
  const entries = take() as Int32Array;
  const lengths = state.plan.text.map(() => take() as Uint16Array);
  const totalLength = lengths.map((l) => l.reduce((sum, v) => sum + v, 0));
  const documentsWithField = lengths.map((l) => l.reduce((count, v) => count + (v ? 1 : 0), 0));
  state.text = new TextIndex(lengths.length, {
    terms: header.terms,
    postings: { offsets, entries },
    lengths,
    totalLength,
    documentsWithField,
  });

  const decodeColumn = (values: string[]) => {
    const column = new ValueColumn();
    values.forEach((value) => column.valueId(value));
    const first = take() as Int32Array;
    const extra = take() as Int32Array;
    column.first = first;
    for (let ord = 0; ord < n; ord++) if (first[ord] >= 0) column.live[first[ord]]++;
    for (let i = 0; i < extra.length;) {
      const more = extra.subarray(i + 2, i + 2 + extra[i + 1]);
      column.addMore(extra[i], more);
      for (const id of more) column.live[id]++;
      i += 2 + more.length;
    }
    return column;
  };
  state.facets = new Map(header.facets.map(({ id, values }) => [id, decodeColumn(values)]));
  state.values = new Map(header.values.map(({ code, values }) => [code, decodeColumn(values)]));
  state.numbers = new Map(
    header.numbers.map((code) => {
      const column = new NumberColumn();
      column.data = take() as Float64Array;
      return [code, column];
    }),
  );
  return state;
}

function reorder(target: Uint16Array, source: Uint16Array, remap: Int32Array): Uint16Array {
  for (let ord = 0; ord < remap.length; ord++) if (remap[ord] >= 0 && ord < source.length) target[remap[ord]] = source[ord];
  return target;
}

function kindOf(array: Int32Array | Uint16Array | Float64Array): Kind {
  return array instanceof Int32Array ? 'i32' : array instanceof Uint16Array ? 'u16' : 'f64';
}
