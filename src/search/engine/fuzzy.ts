/**
 * Look-ups walking the term dictionary (MiniSearch's radix tree) directly: the short terms of a prefix, and a
 * typo-tolerant one: every term within `maxDistance`
 * edits of the query term, where an edit is an insertion, a deletion, a substitution or a swap of two
 * adjacent letters (optimal string alignment, so `wrieshark` is one edit from `wireshark`). MiniSearch's own
 * `fuzzyGet` counts a swap as two edits. One distance row per character of the path; a branch stops once
 * its whole row exceeds the limit.
 */
import type SearchableMap from 'minisearch/SearchableMap';

type Node = SearchableMap<number>['_tree'];
const LEAF = '';

/** Term id -> edits, for the terms within `maxDistance` of `query`. */
export function fuzzyTerms(dictionary: SearchableMap<number>, query: string, maxDistance: number): Map<number, number> {
  const found = new Map<number, number>();
  const n = query.length + 1;
  const rows = n + maxDistance;
  // Cells outside the diagonal band |i - j| <= maxDistance are never computed and stay over the limit.
  const matrix = new Uint8Array((rows + 1) * n).fill(maxDistance + 1);
  for (let j = 0; j < n; j++) matrix[j] = j;
  const path: string[] = [];

  const walk = (node: Node, depth: number) => {
    for (const [key, child] of node) {
      if (key === LEAF) {
        const distance = matrix[depth * n + n - 1];
        if (distance <= maxDistance) found.set(child as number, distance);
        continue;
      }
      let i = depth;
      let within = true;
      for (let k = 0; k < key.length; k++) {
        i += 1;
        if (i >= rows) {
          within = false;
          break;
        }
        path[i - 1] = key[k];
        if (fillRow(matrix, n, i, query, path, maxDistance) > maxDistance) {
          within = false;
          break;
        }
      }
      if (within) walk(child as Node, i);
    }
  };
  walk(dictionary._tree, 0);
  return found;
}

/** Fills distance row `i` (the path's i-th character against the query) within the band; answers its minimum. */
function fillRow(matrix: Uint8Array, n: number, i: number, query: string, path: string[], maxDistance: number): number {
  const row = i * n;
  const above = row - n;
  const char = path[i - 1];
  if (i <= maxDistance) matrix[row] = i;
  let min = i <= maxDistance ? i : maxDistance + 1;
  const to = Math.min(n - 1, i + maxDistance);
  for (let j = Math.max(1, i - maxDistance); j <= to; j++) {
    let d = Math.min(matrix[above + j - 1] + (char === query[j - 1] ? 0 : 1), matrix[above + j] + 1, matrix[row + j - 1] + 1);
    if (i > 1 && j > 1 && char === query[j - 2] && path[i - 2] === query[j - 1]) d = Math.min(d, matrix[above - n + j - 2] + 1);
    matrix[row + j] = d;
    if (d < min) min = d;
  }
  return min;
}

/** The terms starting with `prefix` of at most `maxLength` letters, with their ids; a branch past it is not walked. */
export function shortTermsAtPrefix(dictionary: SearchableMap<number>, prefix: string, maxLength: number): Array<[string, number]> {
  const found: Array<[string, number]> = [];
  const walk = (node: Node, path: string) => {
    for (const [key, child] of node) {
      if (key === LEAF) found.push([path, child as number]);
      else if (path.length + key.length <= maxLength) walk(child as Node, path + key);
    }
  };
  const at = dictionary.atPrefix(prefix);
  walk(at._tree, at._prefix);
  return found;
}
