import type { Postings } from './postings';
import type { FacetDef, SortColumn } from './schema';

/**
 * The binary form: "SIX1", a little-endian u32 length, a JSON header (strings and the layout), then the
 * typed arrays, each 8-byte aligned. Loading views the arrays in place (one copy of the input for alignment).
 */
export interface IndexState {
  postings: Postings;
  ids: string[];
  fieldLengths: Uint16Array[];
  facets: FacetDef[];
  sortColumns: Map<string, SortColumn>;
  facetById: (id: string) => FacetDef | undefined;
  setIds: (ids: string[]) => void;
  setFieldLengths: (lengths: Uint16Array[]) => void;
}

const MAGIC = 0x31584953; // "SIX1"
type ArrayKind = 'u32' | 'i32' | 'u16' | 'f64';
type Typed = Uint32Array | Int32Array | Uint16Array | Float64Array;
const CONSTRUCTORS = { u32: Uint32Array, i32: Int32Array, u16: Uint16Array, f64: Float64Array } as const;

interface Header {
  ids: string[];
  /** Terms by id: exact keys start with '=' or '#', text terms never do. */
  terms: string[];
  postings: [number, number];
  fieldLengths: number[];
  facets: Array<{ id: string; values: string[]; head: number; pool: number; numbers?: number }>;
  sorts: Array<{ code: string; numbers?: number; strings?: Array<string | null> }>;
  arrays: Array<[ArrayKind, number, number]>;
}

export function encodeIndex(state: IndexState): Uint8Array {
  const arrays: Typed[] = [];
  const kinds: ArrayKind[] = [];
  const add = (array: Typed, kind: ArrayKind) => arrays.push(array) - 1 + (kinds.push(kind) - kinds.length);
  const { postings } = state;
  const terms: string[] = new Array(postings.termCount);
  for (const [term, id] of postings.textTerms) terms[id] = term;
  for (const [key, id] of postings.exactTerms) terms[id] = key;
  const header: Header = {
    ids: state.ids,
    terms,
    postings: [add(postings.baseOffsets, 'u32'), add(postings.baseData, 'u32')],
    fieldLengths: state.fieldLengths.map((lengths) => add(lengths.subarray(0, state.ids.length), 'u16')),
    facets: state.facets.map((facet) => ({
      id: facet.id,
      values: facet.values.values,
      head: add(facet.values.head.subarray(0, state.ids.length), 'i32'),
      pool: add(Int32Array.from(facet.values.pool), 'i32'),
      numbers: facet.numbers ? add(facet.numbers.data.subarray(0, state.ids.length), 'f64') : undefined,
    })),
    sorts: [...state.sortColumns].map(([code, column]) =>
      column.numbers
        ? { code, numbers: add(column.numbers.data.subarray(0, state.ids.length), 'f64') }
        : { code, strings: state.ids.map((_, ordinal) => column.strings!.get(ordinal) ?? null) },
    ),
    arrays: [],
  };
  let offset = 0;
  for (let i = 0; i < arrays.length; i++) {
    header.arrays.push([kinds[i], offset, arrays[i].length]);
    offset += align(arrays[i].byteLength);
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = align(8 + json.length);
  const out = new Uint8Array(start + offset);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.length, true);
  out.set(json, 8);
  arrays.forEach((array, i) => out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), start + header.arrays[i][1]));
  return out;
}

export function decodeIndex(bytes: Uint8Array, state: IndexState): void {
  const buffer = bytes.slice().buffer as ArrayBuffer;
  const own = new Uint8Array(buffer);
  const view = new DataView(buffer);
  if (own.length < 8 || view.getUint32(0, true) !== MAGIC) throw new Error('not a serialized search index');
  const length = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(own.subarray(8, 8 + length))) as Header;
  const start = align(8 + length);
  const array = (i: number): Typed => {
    const [kind, offset, n] = header.arrays[i];
    return new CONSTRUCTORS[kind](buffer, start + offset, n);
  };
  const { postings } = state;
  postings.baseOffsets = array(header.postings[0]) as Uint32Array<ArrayBuffer>;
  postings.baseData = array(header.postings[1]) as Uint32Array<ArrayBuffer>;
  postings.termCount = header.terms.length;
  header.terms.forEach((term, id) => {
    if (term[0] === '=' || term[0] === '#') postings.exactTerms.set(term, id);
    else postings.textTerms.set(term, id);
  });
  state.setIds(header.ids);
  state.setFieldLengths(header.fieldLengths.map((i) => array(i) as Uint16Array<ArrayBuffer>));
  for (const saved of header.facets) {
    const facet = state.facetById(saved.id);
    if (!facet) continue;
    facet.values.values = saved.values;
    facet.values.valueIds = new Map(saved.values.map((value, id) => [value, id]));
    facet.values.head = array(saved.head) as Int32Array<ArrayBuffer>;
    facet.values.pool = array(saved.pool) as Int32Array<ArrayBuffer>;
    if (facet.numbers && saved.numbers !== undefined) facet.numbers.data = array(saved.numbers) as Float64Array<ArrayBuffer>;
  }
  for (const saved of header.sorts) {
    const column = state.sortColumns.get(saved.code);
    if (!column) continue;
    if (column.numbers && saved.numbers !== undefined) column.numbers.data = array(saved.numbers) as Float64Array<ArrayBuffer>;
    if (column.strings && saved.strings) column.strings.data = saved.strings.map((value) => value ?? undefined);
  }
}

function align(n: number): number {
  return Math.ceil(n / 8) * 8;
}
