// hit@k and MRR@10 of ranked answers, per query kind and over all cases.

export const CUTOFFS = [1, 3, 10];
export const MRR_DEPTH = 10;

/** 1-based rank of the first acceptable id among the answers, or 0 when none is there. */
export function firstHit(ranked, expected) {
  const acceptable = new Set(expected);
  return ranked.findIndex((id) => acceptable.has(id)) + 1;
}

/** `{ count, hit: { 1, 3, 10 }, mrr }` of outcomes `{ rank }` (0 = missed), as fractions. */
export function summarize(outcomes) {
  const count = outcomes.length;
  const share = (pass) => (count ? outcomes.filter(pass).length / count : NaN);
  const hit = Object.fromEntries(CUTOFFS.map((k) => [k, share(({ rank }) => rank > 0 && rank <= k)]));
  const mrr = count ? outcomes.reduce((sum, { rank }) => sum + (rank > 0 && rank <= MRR_DEPTH ? 1 / rank : 0), 0) / count : NaN;
  return { count, hit, mrr };
}

/** Summaries keyed by kind, in `kinds` order, then `overall`. */
export function summarizeByKind(outcomes, kinds) {
  const byKind = Object.fromEntries(kinds.map((kind) => [kind, summarize(outcomes.filter((outcome) => outcome.kind === kind))]));
  return { ...byKind, overall: summarize(outcomes) };
}

/** `{ [set]: summaries by kind }` of the outcomes of cases marked with a `set` (a held-out set written later). */
export function summarizeSets(outcomes, kinds) {
  const sets = [...new Set(outcomes.map((outcome) => outcome.set).filter(Boolean))];
  return Object.fromEntries(
    sets.map((set) => [
      set,
      summarizeByKind(
        outcomes.filter((outcome) => outcome.set === set),
        kinds,
      ),
    ]),
  );
}
