// Writes a catalogue of N documents derived from the Debian one as gzipped NDJSON feeding envelopes (issue 16):
//   npm run generate-catalogue [-- documents [out]]   (documents: 1000000, out: debian-variants.ndjson.gz)
// The catalogue is read from ../shared/data (or CATALOGUE_DIR); see scripts/bench/variants.mjs for what varies.
import { createWriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { readEnvelopes } from './bench/catalogue.mjs';
import { variantCatalogue } from './bench/variants.mjs';
import { refuse, scriptArgs } from './cli.mjs';

const command = 'npm run generate-catalogue';
const [count = '1000000', path = 'debian-variants.ndjson.gz'] = scriptArgs(import.meta.url, command, {}, 2).positionals;
if (!/^[1-9]\d*$/.test(count)) refuse(command, `The number of documents must be a positive integer, not '${count}'`);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const documents = Number(count);
const out = resolve(path);

function* lines() {
  for (const envelope of variantCatalogue(readEnvelopes(root), documents)) yield `${JSON.stringify(envelope)}\n`;
}

await pipeline(Readable.from(lines()), createGzip(), createWriteStream(out));
process.stderr.write(`wrote ${documents} documents to ${out}\n`);
