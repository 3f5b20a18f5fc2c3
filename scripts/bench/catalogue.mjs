// The Debian catalogue of ../shared/data (relative to the repository root, or CATALOGUE_DIR when set, as a git
// worktree elsewhere needs): schema and feeding envelopes.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const CATALOGUE_SIZE = 63_436;

export function cataloguePaths(root) {
  const dataDir = process.env.CATALOGUE_DIR ? resolve(process.env.CATALOGUE_DIR) : resolve(root, '..', 'shared', 'data');
  const paths = {
    schema: resolve(dataDir, 'debian-packages.schema.json'),
    documents: resolve(dataDir, 'debian-packages.ndjson.gz'),
  };
  const missing = Object.values(paths).filter((path) => !existsSync(path));
  if (missing.length) {
    throw new Error(`The benchmark needs the Debian catalogue beside the repository (or in CATALOGUE_DIR): missing ${missing.join(', ')}`);
  }
  return paths;
}

export function readSchema(root) {
  return JSON.parse(readFileSync(cataloguePaths(root).schema, 'utf8'));
}

/** Every envelope `{ header: { id, action }, payload }` of the catalogue, in file order. */
export function readEnvelopes(root) {
  const text = gunzipSync(readFileSync(cataloguePaths(root).documents)).toString('utf8');
  const envelopes = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  if (envelopes.length !== CATALOGUE_SIZE) {
    throw new Error(`Expected ${CATALOGUE_SIZE} documents in the catalogue, read ${envelopes.length}`);
  }
  return envelopes;
}
