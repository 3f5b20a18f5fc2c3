/** Text analysis shared by indexing and querying: one normalization, one tokenizer. */

const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING_MARKS = /\p{M}/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/** Lower case without diacritics ("Émile" -> "emile"). */
export function normalize(text: string): string {
  const lower = text.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize('NFKD').replace(COMBINING_MARKS, '') : lower;
}

/** Splits on anything that is not a letter or digit: "firefox-esr" -> ["firefox", "esr"]. */
export function tokenize(text: string): string[] {
  const tokens = normalize(text).split(SEPARATORS);
  return tokens.filter((token) => token.length > 0);
}

/** The texts of a field value: a string, a number, or an array of them; anything else is ignored. */
export function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(textsOf);
  return [];
}

/** Parses a number or an ISO 8601 date to a number (dates as epoch milliseconds); NaN when it does not fit. */
export function parseScalar(value: unknown, kind: 'number' | 'date'): number {
  if (kind === 'number') {
    if (typeof value === 'number') return Number.isFinite(value) ? value : NaN;
    if (typeof value === 'string' && value.trim() !== '') return Number(value);
    return NaN;
  }
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) return Date.parse(value);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return NaN;
}
