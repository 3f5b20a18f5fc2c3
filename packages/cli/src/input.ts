/** Reading a feeding file as a stream: NDJSON lines, gunzipped when the name ends in `.gz`. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface FeedFile {
  /** `ndjson`: fed line by line in bulk chunks; `json`: a JSON array, streamed whole to the upload endpoint. */
  format: 'ndjson' | 'json';
  gzip: boolean;
  size: number;
}

export async function inspect(path: string): Promise<FeedFile> {
  const gzip = path.endsWith('.gz');
  const name = gzip ? path.slice(0, -3) : path;
  const format = name.endsWith('.json') ? 'json' : 'ndjson';
  return { format, gzip, size: (await stat(path)).size };
}

/** The file's bytes as a web stream, decompressed when gzipped; `onRead` sees the bytes read from disk. */
export function fileStream(path: string, file: FeedFile, onRead: (bytes: number) => void): ReadableStream<Uint8Array> {
  const raw = createReadStream(path);
  raw.on('data', (chunk) => onRead(chunk.length));
  const stream = file.gzip ? raw.pipe(createGunzip()) : raw;
  // Node's and the Workers' ReadableStream types differ; at run time this is Node's, which fetch takes.
  return Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
}

/** The non-empty lines of an NDJSON file, read as they are needed (the file is never whole in memory). */
export async function* ndjsonLines(path: string, file: FeedFile, onRead: (bytes: number) => void): AsyncGenerator<string> {
  const raw = createReadStream(path);
  raw.on('data', (chunk) => onRead(chunk.length));
  const lines = createInterface({ input: file.gzip ? raw.pipe(createGunzip()) : raw, crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) yield line;
}
