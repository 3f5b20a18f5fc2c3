/** Text analysis shared by indexing and querying: one tokenizer, one normalization. */

const TOKEN = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/** Lower-cased, accent-free form of a text. */
export function normalize(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** Words of a text: runs of letters and digits, normalized. `firefox-esr` gives `firefox`, `esr`. */
export function tokenize(text: string): string[] {
  return normalize(text).match(TOKEN) ?? [];
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
