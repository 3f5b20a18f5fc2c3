// The relevance query sets: cases.ndjson beside this file, one `{ kind, query, expected: [ids] }` a line,
// `expected` being every package a user typing `query` would accept; an optional `set` names a group reported apart
// (`held-out`: cases written after the engine's tuning, without looking at its answers).
import { readFileSync } from 'node:fs';

/** The kinds in report order, as in issue 11's table. */
export const KINDS = ['exact', 'typo1', 'typo2', 'prefix', 'split-join', 'plural', 'descriptive', 'natural-language', 'general'];

const CASES_FILE = new URL('./cases.ndjson', import.meta.url);

/** Every case, checked against the catalogue: an unknown kind or id fails the run, listing them all. */
export function readCases(catalogueIds) {
  const cases = readFileSync(CASES_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const problems = cases.flatMap(({ kind, query, expected }, i) => {
    const where = `case ${i + 1} (${kind}: ${JSON.stringify(query)})`;
    if (!KINDS.includes(kind)) return [`${where}: unknown kind`];
    if (!query?.trim() || !expected?.length) return [`${where}: needs a query and expected ids`];
    return expected.filter((id) => !catalogueIds.has(id)).map((id) => `${where}: ${id} is not in the catalogue`);
  });
  if (problems.length) throw new Error(`${problems.length} problem(s) in ${CASES_FILE.pathname}:\n  ${problems.join('\n  ')}`);
  return cases;
}
