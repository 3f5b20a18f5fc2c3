/**
 * BM25 statistics across shards: each shard reports its share for a query (documents, field lengths, the postings
 * of every term the query expands to here, whether it matched), the shares are summed (`mergeCorpusStats`), and
 * each shard scores the query with the sums, as one index holding every document would.
 */
import { expand } from './expansions';
import { matchPlan, release } from './matching';
import { planQuery } from './query-plan';
import type { CorpusStatistics } from './ranking';
import type { IndexState } from './state';
import type { CorpusStats } from './types';

/** This index's share of the statistics a query reads: the strict and the relaxed plan's expansions alike. */
export function queryCorpusStats(state: IndexState, q: string): CorpusStats {
  const { text } = state;
  const terms = new Map<string, number>();
  const strict = planQuery(state, q);
  for (const plan of [strict, planQuery(state, q, true)]) {
    for (const alternative of plan?.alternatives ?? []) {
      const phrase = alternative.terms.length > 1;
      for (const term of alternative.terms) {
        const expansions = phrase ? expand(state, term, false, 0) : expand(state, term, alternative.prefix, alternative.typos);
        for (const { termId } of expansions) terms.set(text.terms[termId], text.count(termId));
      }
    }
  }
  let matched = false;
  if (strict) {
    const matches = matchPlan(state, strict);
    matched = matches.ords.length > 0;
    release(matches);
  }
  return {
    documents: state.liveCount,
    fieldLengths: state.plan.text.map(({ slot }) => ({ total: text.totalLength[slot], documents: text.documentsWithField[slot] })),
    terms: [...terms],
    matched,
  };
}

/** The summed statistics as the ranking reads them; a term no shard reported counts as this index's own. */
export function corpusStatisticsOf(state: IndexState, stats: CorpusStats): CorpusStatistics {
  const terms = new Map(stats.terms);
  return {
    documents: Math.max(stats.documents, 1),
    frequency: (termId) => terms.get(state.text.terms[termId]) ?? state.text.count(termId),
    averageLength: (slot) => {
      const lengths = stats.fieldLengths[slot];
      return lengths?.documents ? lengths.total / lengths.documents : 1;
    },
  };
}
