// A relevance run against a saved one (`npm run relevance -- --against FILE`): which cases' first acceptable answer
// moved, and how many top 10s changed at all, the figures each ranking change in docs/decisions.md is judged by.

/** What a run keeps of each case to be compared later (`--save`). */
export function savedOutcomes(outcomes) {
  return outcomes.map(({ kind, query, set, rank, ranked }) => ({ kind, query, set, rank, ranked }));
}

/**
 * `{ compared, changedTop10, moved }` of two runs' outcomes, matched by kind and query (cases in only one run are not
 * compared): `moved` lists the cases whose first acceptable answer changed rank (0: not in the top 10), worst first.
 */
export function compareOutcomes(before, after) {
  const key = ({ kind, query }) => `${kind}\u0000${query}`;
  const earlier = new Map(before.map((outcome) => [key(outcome), outcome]));
  let compared = 0;
  let changedTop10 = 0;
  const moved = [];
  for (const outcome of after) {
    const old = earlier.get(key(outcome));
    if (!old) continue;
    compared++;
    if (old.ranked.join('\n') !== outcome.ranked.join('\n')) changedTop10++;
    if (old.rank !== outcome.rank)
      moved.push({ kind: outcome.kind, query: outcome.query, set: outcome.set, from: old.rank, to: outcome.rank });
  }
  moved.sort((a, b) => gain(a) - gain(b));
  return { compared, changedTop10, moved };
}

/** The comparison as lines of text: the counts, then each moved case as `kind  query  from -> to`. */
export function renderComparison({ compared, changedTop10, moved }) {
  const rank = (value) => (value ? String(value) : '>10');
  const lower = moved.filter((move) => gain(move) < 0).length;
  return [
    `${compared} cases compared: ${changedTop10} top 10s changed; first acceptable answer higher in ${moved.length - lower}, lower in ${lower}`,
    ...moved.map(({ kind, query, from, to }) => `${kind.padEnd(16)}  ${query}  ${rank(from)} -> ${rank(to)}`),
  ].join('\n');
}

/** How far a case's first acceptable answer rose (negative: fell), a miss counting as rank 11. */
function gain({ from, to }) {
  return (from || 11) - (to || 11);
}
