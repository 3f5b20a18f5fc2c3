// Writes a catalogue of N documents derived from the Debian one as gzipped NDJSON feeding envelopes (issue 16):
//   node scripts/generate-catalogue.mjs [documents = 1000000] [out = debian-variants.ndjson.gz]
// The catalogue is read from ../shared/data (or CATALOGUE_DIR); see scripts/bench/variants.mjs for what varies.
import { createWriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { readEnvelopes } from './bench/catalogue.mjs';
import { variantCatalogue } from './bench/variants.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const documents = Number(process.argv[2] ?? 1_000_000);
const out = resolve(process.argv[3] ?? 'debian-variants.ndjson.gz');
if (!Number.isInteger(documents) || documents < 1) throw new Error(`documents must be a positive integer, not ${process.argv[2]}`);

function* lines() {
  for (const envelope of variantCatalogue(readEnvelopes(root), documents)) yield `${JSON.stringify(envelope)}\n`;
}

await pipeline(Readable.from(lines()), createGzip(), createWriteStream(out));
process.stderr.write(`wrote ${documents} documents to ${out}\n`);
