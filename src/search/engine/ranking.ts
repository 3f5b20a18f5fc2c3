/**
 * Ordering candidates: relevance (query terms matched, then terms matched exactly, then score, then id),
 * or a sort field with relevance breaking ties; and selecting the top k without sorting everything.
 */
import { compareStrings, type ValueColumn } from './columns';
import type { Matches } from './matching';
import type { SortSpec } from './plan';
import { QueryError } from './query-error';
import type { IndexState } from './state';

/** Negative when ordinal `a` comes before `b`. */
export type Compare = (a: number, b: number) => number;

/** Relevance order of matched documents, best first. */
export function relevanceOrder(state: IndexState, matches: Matches): Compare {
  return (a, b) =>
    popcount(matches.terms[b]) - popcount(matches.terms[a]) ||
    popcount(matches.exactTerms[b]) - popcount(matches.exactTerms[a]) ||
    matches.score[b] - matches.score[a] ||
    compareStrings(state.ids[a], state.ids[b]);
}

/** Feeding order: what documents come in when there is no query. */
export const feedingOrder: Compare = (a, b) => a - b;

/** The sort a request names, or undefined for relevance. */
export function resolveSort(state: IndexState, sort: string | undefined): SortSpec | undefined {
  if (!sort) return undefined;
  const spec = state.plan.sorts.get(sort);
  if (!spec) {
    const known = [...state.plan.sorts.keys()];
    throw new QueryError([{ path: 'sort', message: `unknown sort '${sort}'${known.length ? `; known: ${known.join(', ')}` : ''}` }]);
  }
  return spec;
}

/** Order by a sort field, documents without a value last in both directions, ties by `relevance`. */
export function sortOrder(state: IndexState, sort: SortSpec, relevance: Compare): Compare {
  const sign = sort.direction === 'asc' ? 1 : -1;
  const numbers = state.numbers.get(sort.field.code);
  const values = state.values.get(sort.field.code);
  const key: (ord: number) => number = numbers ? (ord) => numbers.get(ord) : values ? columnRank(values) : () => NaN;
  return (a, b) => {
    const ka = key(a);
    const kb = key(b);
    const missingA = Number.isNaN(ka);
    const missingB = Number.isNaN(kb);
    if (missingA || missingB) return missingA === missingB ? relevance(a, b) : missingA ? 1 : -1;
    return sign * (ka - kb) || relevance(a, b);
  };
}

function columnRank(column: ValueColumn): (ord: number) => number {
  const ranks = column.ranks();
  return (ord) => {
    const id = column.firstId(ord);
    return id < 0 ? NaN : ranks[id];
  };
}

/** Set bits of a 32-bit number (matched query terms). */
export function popcount(bits: number): number {
  let count = 0;
  for (let b = bits; b; b &= b - 1) count++;
  return count;
}

/** The first `k` of `ords` in order, without sorting everything when k is small. */
export function selectTop(ords: number[], k: number, compare: Compare): number[] {
  if (k <= 0) return [];
  if (ords.length <= k * 4 || ords.length < 512) return ords.sort(compare).slice(0, k);
  // Bounded max-heap of the best k seen so far (the worst on top).
  const heap: number[] = [];
  const worse = (i: number, j: number) => compare(heap[i], heap[j]) > 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  for (const ord of ords) {
    if (heap.length < k) {
      heap.push(ord);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (compare(ord, heap[0]) < 0) {
      heap[0] = ord;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let top = i;
        if (l < heap.length && worse(l, top)) top = l;
        if (r < heap.length && worse(r, top)) top = r;
        if (top === i) break;
        swap(i, top);
        i = top;
      }
    }
  }
  return heap.sort(compare);
}
