/**
 * The storage form of an index (`codec`) and of a statistics share (`corpus`): a magic number, the byte length of a
 * JSON header, the header, then typed-array sections, each 8-byte aligned. Strings travel in the header; numbers in
 * the sections, read back as typed arrays without parsing them.
 */

const HEADER_AT = 8;

/** The bytes of `header` and `sections` behind `magic`. */
export function packSections(magic: number, header: object, sections: ArrayBufferView[]): Uint8Array {
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const headerEnd = align(HEADER_AT + headerBytes.length);
  const bytes = new Uint8Array(sections.reduce((size, section) => align(size + section.byteLength), headerEnd));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, magic, true);
  view.setUint32(4, headerBytes.length, true);
  bytes.set(headerBytes, HEADER_AT);
  let offset = headerEnd;
  for (const section of sections) {
    bytes.set(new Uint8Array(section.buffer, section.byteOffset, section.byteLength), offset);
    offset = align(offset + section.byteLength);
  }
  return bytes;
}

type TypedArrayOf<A> = new (buffer: ArrayBuffer, byteOffset: number, length: number) => A;

/** What `packSections` wrote: its header and the sections, taken in the order they were written. */
export interface PackedSections<H> {
  header: H;
  /** The next section, as a typed array of `length` elements. */
  take<A>(kind: TypedArrayOf<A> & { BYTES_PER_ELEMENT: number }, length: number): A;
}

/** The header and sections of `bytes`, or undefined when they do not begin with `magic`. */
export function unpackSections<H>(magic: number, bytes: Uint8Array): PackedSections<H> | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < HEADER_AT || view.getUint32(0, true) !== magic) return undefined;
  const headerLength = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(HEADER_AT, HEADER_AT + headerLength))) as H;
  // Copied once into an aligned buffer, so sections can be typed-array views (stored bytes need not start aligned).
  const body: Uint8Array<ArrayBuffer> = new Uint8Array(bytes.subarray(align(HEADER_AT + headerLength)));
  let offset = 0;
  return {
    header,
    take(kind, length) {
      const array = new kind(body.buffer, offset, length);
      offset = align(offset + length * kind.BYTES_PER_ELEMENT);
      return array;
    },
  };
}

function align(n: number): number {
  return (n + 7) & ~7;
}
