/**
 * Streaming reader of an uploaded feeding file: the multipart part `file` holding a JSON array or
 * NDJSON, read chunk by chunk and yielded entry by entry, so a file of any size never sits in memory
 * whole, neither as bytes nor parsed.
 */
import { ApiError } from '../errors';

const encoder = new TextEncoder();

/** Most characters an unfinished upload entry may buffer (a document is at most 100 KB): a file without line breaks cannot fill memory. */
export const MAX_UPLOAD_ENTRY_CHARS = 1 << 20;

function tooLong(): ApiError {
  return ApiError.badRequest('Invalid file', [{ path: 'file', message: `an entry is longer than ${MAX_UPLOAD_ENTRY_CHARS} characters` }]);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  outer: for (let i = haystack.indexOf(first, from); i !== -1 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** The text of the multipart part named `file`, as it streams in. */
export async function* multipartFileText(body: ReadableStream<Uint8Array>, contentType: string): AsyncGenerator<string> {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!/^multipart\/form-data/i.test(contentType) || !boundary) {
    throw ApiError.badRequest('Expected a multipart/form-data body with a part named file', [
      { path: 'Content-Type', message: 'must be multipart/form-data with a boundary' },
    ]);
  }
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const decoder = new TextDecoder();
  // A leading CRLF makes the first boundary look like every other delimiter.
  let buffer: Uint8Array = encoder.encode('\r\n');
  let state: 'preamble' | 'headers' | 'body' | 'after' | 'done' = 'preamble';
  let inFile = false;
  let sawFile = false;

  const reader = body.getReader();
  for (let ended = false; !ended;) {
    const { value, done } = await reader.read();
    if (value) buffer = concat(buffer, value);
    ended = done;
    for (let progressed = true; progressed && state !== 'done';) {
      progressed = false;
      if (state === 'preamble' || state === 'body') {
        const at = indexOf(buffer, delimiter);
        if (at >= 0) {
          if (state === 'body' && inFile) yield decoder.decode(buffer.subarray(0, at));
          buffer = buffer.subarray(at + delimiter.length);
          state = 'after';
          progressed = true;
        } else if (state === 'body') {
          const keep = Math.min(buffer.length, delimiter.length - 1);
          if (inFile && buffer.length > keep) yield decoder.decode(buffer.subarray(0, buffer.length - keep), { stream: true });
          buffer = buffer.subarray(buffer.length - keep);
        }
      } else if (state === 'after' && buffer.length >= 2) {
        const marker = String.fromCharCode(buffer[0], buffer[1]);
        buffer = buffer.subarray(2);
        state = marker === '--' ? 'done' : 'headers';
        progressed = true;
      } else if (state === 'headers') {
        const end = indexOf(buffer, encoder.encode('\r\n\r\n'));
        if (end >= 0) {
          const headers = new TextDecoder().decode(buffer.subarray(0, end));
          inFile = /content-disposition:[^\r\n]*\bname="?file"?(;|\s|$)/im.test(headers);
          sawFile ||= inFile;
          buffer = buffer.subarray(end + 4);
          state = 'body';
          progressed = true;
        }
      }
    }
  }
  if (!sawFile) throw ApiError.badRequest('The upload has no part named file', [{ path: 'file', message: 'required' }]);
}

/** Whether a Content-Type names NDJSON. */
export function isNdjson(contentType: string | undefined): boolean {
  return /^application\/(x-)?ndjson\b/i.test(contentType ?? '');
}

/** Text given whole, as the one chunk `feedEntries` reads. */
export async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/** The text of an upload as it streams in: the `file` part of a multipart body, or the whole body (JSON or NDJSON). */
export function uploadedText(body: ReadableStream<Uint8Array>, contentType: string): AsyncIterable<string> {
  if (/^multipart\//i.test(contentType)) return multipartFileText(body, contentType);
  if (isNdjson(contentType) || /^application\/(json|octet-stream)\b/i.test(contentType)) return body.pipeThrough(new TextDecoderStream());
  throw ApiError.badRequest('Unsupported upload type', [
    {
      path: 'Content-Type',
      message: 'send multipart/form-data with a part named file, or the file itself as application/json or application/x-ndjson',
    },
  ]);
}

/**
 * Entries of a JSON array or of NDJSON, parsed one at a time from streamed text.
 * A broken NDJSON line is yielded as an Error in its place (later lines are independent);
 * a broken JSON array stops the file with a 400.
 */
export async function* feedEntries(chunks: AsyncIterable<string>): AsyncGenerator<unknown | Error> {
  let format: 'array' | 'ndjson' | undefined;
  let current = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let closed = false;
  let entryNumber = 0;

  const parse = (text: string): unknown | Error => {
    entryNumber += 1;
    try {
      return JSON.parse(text);
    } catch {
      return new Error(`entry ${entryNumber} is not valid JSON`);
    }
  };

  for await (const chunk of chunks) {
    let start = 0;
    if (!format) {
      const first = chunk.search(/\S/);
      if (first < 0) continue;
      format = chunk[first] === '[' ? 'array' : 'ndjson';
      if (format === 'array') start = first + 1;
      else if (chunk[first] !== '{')
        throw ApiError.badRequest('Invalid file', [{ path: 'file', message: 'expected a JSON array or NDJSON' }]);
    }
    if (format === 'ndjson') {
      const lines = (current + chunk.slice(start)).split('\n');
      current = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) yield parse(line);
      if (current.length > MAX_UPLOAD_ENTRY_CHARS) throw tooLong();
      continue;
    }
    // JSON array: split top-level elements by tracking strings and nesting.
    let from = start;
    for (let i = start; i < chunk.length; i++) {
      const c = chunk[i];
      if (closed) {
        if (!/\s/.test(c))
          throw ApiError.badRequest('Invalid file', [{ path: 'file', message: 'unexpected content after the JSON array' }]);
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) {
          const text = current + chunk.slice(from, i);
          if (text.trim()) yield arrayEntry(parse(text), entryNumber);
          current = '';
          closed = true;
          continue;
        }
        depth--;
      } else if (c === ',' && depth === 0) {
        yield arrayEntry(parse(current + chunk.slice(from, i)), entryNumber);
        current = '';
        from = i + 1;
      }
    }
    if (!closed) current += chunk.slice(from);
    if (current.length > MAX_UPLOAD_ENTRY_CHARS) throw tooLong();
  }
  if (format === 'ndjson' && current.trim()) yield parse(current);
  if (format === 'array' && !closed) throw ApiError.badRequest('Invalid file', [{ path: 'file', message: 'the JSON array is not closed' }]);
  if (!format) throw ApiError.badRequest('Invalid file', [{ path: 'file', message: 'the file is empty' }]);
}

function arrayEntry(entry: unknown, number: number): unknown {
  if (entry instanceof Error) {
    throw ApiError.badRequest('Invalid file', [{ path: 'file', message: `entry ${number} of the JSON array is not valid JSON` }]);
  }
  return entry;
}
