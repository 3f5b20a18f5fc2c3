/**
 * Text analysis shared by indexing, querying and highlighting: one tokenizer, one normalization, one edit
 * distance, so that what the engine matched and what a highlighter marks agree.
 */

const TOKEN = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
const MAX_QUERY_TERMS = 16;

/** Lower-cased, accent-free form of a text: `normalize('Crème')` gives `creme`. */
export function normalize(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** Words of a text: runs of letters and digits, normalized. `firefox-esr` gives `firefox`, `esr`. */
export function tokenize(text: string): string[] {
  return normalize(text).match(TOKEN) ?? [];
}

/** The words of a query the engine looks at (the first 16). */
export function queryTokens(q: string): string[] {
  return tokenize(q).slice(0, MAX_QUERY_TERMS);
}

/** A whole value as one comparable phrase (`Text  Editors` and `text-editors` both give `text editors`). */
export function phrase(text: string): string {
  return tokenize(text).join(' ');
}

/** Edit distance a query term of this length may be away from an indexed term in fuzzy fields. */
export function fuzzyDistance(term: string): number {
  if (term.length >= 8) return 2;
  if (term.length >= 4) return 1;
  return 0;
}

/**
 * Edits (insertion, deletion, substitution, or a swap of two adjacent letters) between two words
 * (optimal string alignment distance); stops counting past `max` and then answers `max + 1`.
 * `editDistance('wireshark', 'wrieshark')` is 1.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > max) return max + 1;
    [before, previous] = [previous, current];
  }
  return Math.min(previous[b.length], max + 1);
}
